/* The seed's production line (examples/production-line, the network of Produce): the peer of
 * benchmarks/models/production-line.
 *
 *   spin -a production-line.pml && cc -O2 -DSAFETY -o pan pan.c && ./pan -c0
 *
 * Feed offers a part on `parts` forever; Build receives parts and counts them in `made` until it
 * has made 3, then the feed is aborted (Promela cannot kill a process: the feed's loop carries
 * an end label, so a state where only the feed waits is a valid end state). Shutdown, the other
 * network of the example, is one step and has no peer, so Hilbert's row counts the states of
 * both networks and Spin's only those of Produce (and Hilbert's Produce has one state more, the
 * scene before its first step, `believe made(0)`).
 */
chan parts = [0] of { byte };
byte made;

active proctype Feed()
{
end:
    do
    :: parts ! 1
    od
}

/* A part is received only while fewer than 3 have been: eval(made < 3) is 1, the part, only then;
 * with 3 made, Build waits at an end label, where Hilbert's has ended. */
active proctype Build()
{
end:
    do
    :: atomic { parts ? eval(made < 3); made++ }
    od
}
