/* Dining philosophers, the peer of benchmarks/models/philosophers-{symmetric,asymmetric}.
 *
 *   spin -DN=5 [-DASYMMETRIC] -a philosophers.pml && cc -O2 -DSAFETY -o pan pan.c && ./pan
 *
 * As in Table.hk: fork i is a process taken and put back over its two rendezvous channels;
 * philosopher i sits between fork i (left) and fork i+1 (right) and takes its left fork first,
 * except, with ASYMMETRIC, the last one, who takes its right fork (fork 0) first. It believes
 * ate(i) in the step that gives it the second fork: the assignment sits in an atomic block with
 * that send, so that one step is one communication and the local work after it.
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
    :: take[_pid] ? _; put[_pid] ? _
    od
}

active [N] proctype Philosopher()
{
    byte seat = _pid - N;
    byte first = seat;
    byte second = (seat + 1) % N;
#ifdef ASYMMETRIC
    if
    :: seat == N - 1 -> first = 0; second = N - 1
    :: else -> skip
    fi;
#endif
    do
    :: take[first] ! seat;
       atomic { take[second] ! seat; ate[seat] = 1 };
       put[first] ! seat;
       put[second] ! seat
    od
}
