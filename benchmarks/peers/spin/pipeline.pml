/* A pipeline of N stages counting to K: the peer of benchmarks/models/pipeline.
 *
 *   spin -DN=4 -DK=8 -a pipeline.pml && cc -O2 -DSAFETY -o pan pan.c && ./pan -c0
 *
 * As in the generated Line.hk: the feed offers parts on parts[0] forever; stages 1 … N-1 each
 * take a part and hand it on, and end after handing on K; the last stage (the seed's Build)
 * counts what it receives in `made` and ends at K. Hilbert then aborts the feed; Promela cannot
 * kill a process, so the feed's loop carries an end label: a state where the feed waits and
 * every other process has ended is a valid end state, and one where something else is stuck is
 * still a deadlock. A relay counts a part when it receives it (Hilbert: when it hands it on):
 * the local work sits on the receiving side of an atomic block, where Spin keeps it in the
 * step of the rendezvous. The state graphs correspond one to one, except that Hilbert's has
 * one state more: the scene before its first step, `believe made(0)` (here `made` starts at 0).
 */
#ifndef N
#define N 4
#endif
#ifndef K
#define K 8
#endif

chan parts[N] = [0] of { byte };
byte made;

active proctype Feed()
{
end:
    do
    :: parts[0] ! 1
    od
}

/* A part is received only while fewer than K have been: eval(passed < K) is 1, the part, only
 * then. A stage that has handed on K parts waits at an end label forever, where Hilbert's has
 * ended: one state for one state. */
active [N - 1] proctype Stage()
{
    byte passed;
end:
    do
    :: atomic { parts[_pid - 1] ? eval(passed < K); passed++ }; parts[_pid] ! 1
    od
}

active proctype Build()
{
end:
    do
    :: atomic { parts[N - 1] ? eval(made < K); made++ }
    od
}
