#!/bin/bash
# Cold start of the README main command in a fresh clone + venv (docs/performance.md, "Cold start").
# usage: bash benchmarks/cold_start.sh [REPO [LABEL]]   (REPO: a git checkout, default: this one)
set -e
repo=${1:-$(git -C "$(dirname "$0")" rev-parse --show-toplevel)}; set -- "$repo" "${2:-cold}"
d=$(mktemp -d); git clone -q "$1" $d/c; python3.11 -m venv $d/venv
cd $d/c && source $d/venv/bin/activate
unset NUMBA_CACHE_DIR PYTHONPATH
s=$(date +%s.%N); python -m pip install -q -e . >/dev/null 2>&1; e=$(date +%s.%N)
echo "$2 install: $(echo "$e - $s" | bc) s"
s=$(date +%s.%N); flexmbd example slider-crank-sda --out $d/out > $d/run1.txt 2>&1; e=$(date +%s.%N)
echo "$2 first run: $(echo "$e - $s" | bc) s"; tail -5 $d/run1.txt
if [ -f flexmbd/cold_start.py ]; then   # wait for the background compile (flexmbd/cold_start.py)
  for i in $(seq 600); do ls flexmbd/kernels/__pycache__/numba-*/compiled >/dev/null 2>&1 && break; sleep 1; done
  e2=$(date +%s.%N); echo "$2 background compile done $(echo "$e2 - $e" | bc) s after the first run"
  cat flexmbd/kernels/__pycache__/numba-*/compiling.log
fi
s=$(date +%s.%N); flexmbd example slider-crank-sda --out $d/out2 > $d/run2.txt 2>&1; e=$(date +%s.%N)
echo "$2 second run: $(echo "$e - $s" | bc) s"
echo "dir $d"
