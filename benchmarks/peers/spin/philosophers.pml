/* Dining philosophers: the peer of benchmarks/models/philosophers-{symmetric,asymmetric}.
 *
 *   spin -DN=5 [-DASYMMETRIC] -a philosophers.pml && cc -O2 -DSAFETY -o pan pan.c && ./pan -c0
 *
 * As in the generated Table.hk: fork i is a process taken and put back over two rendezvous
 * channels; philosopher i sits between fork i (left) and fork i+1 (right) and takes its left
 * fork first, except, with ASYMMETRIC, the last one, who takes its right fork (fork 0) first.
 *
 * One step is one communication and the local work after it: the philosopher believes ate(i)
 * in the step that gives it its second fork. Spin keeps a rendezvous and the statements after
 * it in one step only on the receiving side of an atomic block (a sending side loses atomicity
 * at the handshake), so here the fork offers itself (take[i] ! i) and the philosopher receives
 * it; the direction of a value changes nothing in the state graph.
 *
 * No end labels: every state where nothing can move is an invalid end state, as every such
 * state is a deadlock in Hilbert (nothing here ever finishes).
 */
#ifndef N
#define N 5
#endif

chan take[N] = [0] of { byte };
chan put[N] = [0] of { byte };
bit ate[N];

active [N] proctype Fork()
{
    do
    :: take[_pid] ! _pid; put[_pid] ? _
    od
}

#ifdef ASYMMETRIC
#define FIRST(s)  (s == N - 1 -> 0 : s)
#define SECOND(s) (s == N - 1 -> N - 1 : (s + 1) % N)
#else
#define FIRST(s)  (s)
#define SECOND(s) ((s + 1) % N)
#endif

active [N] proctype Philosopher()
{
    do
    :: take[FIRST(_pid - N)] ? _;
       atomic { take[SECOND(_pid - N)] ? _; ate[_pid - N] = 1 };
       put[FIRST(_pid - N)] ! _pid - N;
       put[SECOND(_pid - N)] ! _pid - N
    od
}
