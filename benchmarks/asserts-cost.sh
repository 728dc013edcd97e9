#!/bin/bash
# The cost of assertions (issue 34) on `hilbert bench`'s models: each model generated at its
# `large` suite's first size, built (`--fresh --jobs 2`, the median of five) as generated and
# with five assertions appended to its agent (always, never over intends/desires, precedes,
# eventually under weak fairness, leads to). From the repository's root, after
#   cargo build --release -p hilbert -p hilbert-benchmarks
# run `benchmarks/asserts-cost.sh`; it prints a Markdown row per model and variant.
set -e
H=${HILBERT:-target/release/hilbert}
G=${GEN_MODEL:-target/release/gen-model}
out=${OUT:-/tmp/bench-asserts}; rm -rf $out; mkdir -p $out
run() { # model n belief desire binding
  local m=$1 n=$2 b=$3 d=$4 p=$5
  $G --model $m --n $n --out $out/$m-plain >/dev/null
  cp -r $out/$m-plain $out/$m-asserts
  local ha=$(ls $out/$m-asserts/*.ha)
  python3 - "$ha" "$b" "$d" "$p" <<'PY'
import sys
path, b, d, p = sys.argv[1:]
s = open(path).read()
i = s.rindex("}")
extra = f"""  assert a_always: always ¬ B(self) {b}(99)
  assert a_never: never intends {p} ∧ ¬ desires {d}
  assert a_precedes: B(self) {b}(0) precedes B(self) {b}(1)
  assert a_eventually: eventually B(self) {b}(_) under weak fairness
  assert a_leads: B(self) {b}(0) leads to B(self) {b}(1)
"""
open(path, "w").write(s[:i] + extra + s[i:])
PY
  for v in plain asserts; do
    local times=()
    for k in 1 2 3 4 5; do
      local t0=$(date +%s.%N)
      $H build $out/$m-$v --out $out/o-$m-$v --jobs 2 --fresh > $out/$m-$v.txt 2>&1 || true
      local t1=$(date +%s.%N)
      times+=($(echo "$t1 - $t0" | bc))
    done
    local med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
    local summary=$(grep -E '^[0-9]+ theorems' $out/$m-$v.txt)
    local net=$(grep -E '^network ' $out/$m-$v.txt | head -1 | sed 's/.*: //')
    echo "| $m | $n | $v | $med s | $summary | $net |"
  done
}
run token-ring 12 served Served Circulate
run philosophers-symmetric 7 ate EveryoneFed Dine
run cyclic-scheduler 11 started AllStarted Schedule
run pipeline 14 made Produced Work
