/* A token ring of N nodes: the peer of benchmarks/models/token-ring.
 *
 *   spin -DN=8 -a token-ring.pml && cc -O2 -DSAFETY -o pan pan.c && ./pan -c0
 *
 * As in the generated Ring.hk: node i receives the token on tok[i-1] (node 0 starts with it),
 * then either serves its user (receives its request and believes served(i) in that step, waits
 * for it to be done, passes the token on tok[i]) or passes the token at once; a user asks, then
 * says it is done, forever. No end labels: nothing ever finishes, so any state where nothing
 * can move is a deadlock, as in Hilbert.
 */
#ifndef N
#define N 4
#endif

chan tok[N] = [0] of { byte };
chan req[N] = [0] of { byte };
chan done[N] = [0] of { byte };
bit served[N];

inline hold(i)
{
    if
    :: atomic { req[i] ? _; served[i] = 1 }; done[i] ? _; tok[i] ! i
    :: tok[i] ! i
    fi
}

active proctype Node0()
{
    do
    :: hold(0); tok[N - 1] ? _
    od
}

active [N - 1] proctype Node()
{
    do
    :: tok[_pid - 1] ? _; hold(_pid)
    od
}

active [N] proctype User()
{
    do
    :: req[_pid - N] ! 1; done[_pid - N] ! 1
    od
}
