/* Milner's cyclic scheduler of N tasks: the peer of benchmarks/models/cyclic-scheduler.
 *
 *   spin -DN=8 -a cyclic-scheduler.pml && cc -O2 -DSAFETY -o pan pan.c && ./pan -c0
 *
 * As in the generated Cycle.hk: cycler i gets the baton on baton[i-1] (cycler 0 starts with
 * it), starts task i, then in either order passes the baton on baton[i] and sees task i finish.
 * Hilbert's cycler believes started(i) in the step of the start; here the task, the receiving
 * side, sets it in that step (Spin keeps a rendezvous and what follows in one step only on the
 * receiving side of an atomic block). No end labels, as nothing ever finishes.
 */
#ifndef N
#define N 4
#endif

chan baton[N] = [0] of { byte };
chan start[N] = [0] of { byte };
chan finish[N] = [0] of { byte };
bit started[N];

inline go(i)
{
    start[i] ! i;
    if
    :: baton[i] ! i; finish[i] ? _
    :: finish[i] ? _; baton[i] ! i
    fi
}

active proctype Cycler0()
{
    do
    :: go(0); baton[N - 1] ? _
    od
}

active [N - 1] proctype Cycler()
{
    do
    :: baton[_pid - 1] ? _; go(_pid)
    od
}

active [N] proctype Task()
{
    do
    :: atomic { start[_pid - N] ? _; started[_pid - N] = 1 }; finish[_pid - N] ! 1
    od
}
