/* The plain table: the peer of benchmarks/models/philosophers-plain.
 *
 *   spin -o2 -DN=12 -a philosophers-plain.pml && cc -O2 -DSAFETY -o pan pan.c && ./pan -c0 -m10000000
 *
 * As in the generated Table.hk: fork i is a process taken and put back over two rendezvous
 * channels; philosopher i sits between fork i and fork i+1, takes the lower-numbered of them
 * first (the last philosopher takes fork 0 first), then the other, and puts them back the second
 * first. Nothing else: no beliefs, no globals. Every step is one rendezvous, so Spin's states
 * are Hilbert's, one for one (102,571 for N = 10, 338,769 for 11, 1,118,878 for 12).
 *
 * No end labels: every state where nothing can move is an invalid end state, as every such
 * state is a deadlock in Hilbert (nothing here ever finishes).
 */
#ifndef N
#define N 5
#endif

chan take[N] = [0] of { byte };
chan put[N] = [0] of { byte };

active [N] proctype Fork()
{
    do
    :: take[_pid] ! _pid; put[_pid] ? _
    od
}

#define FIRST(s)  (s == N - 1 -> 0 : s)
#define SECOND(s) (s == N - 1 -> N - 1 : (s + 1) % N)

active [N] proctype Philosopher()
{
    do
    :: take[FIRST(_pid - N)] ? _;
       take[SECOND(_pid - N)] ? _;
       put[SECOND(_pid - N)] ! _pid - N;
       put[FIRST(_pid - N)] ! _pid - N
    od
}
