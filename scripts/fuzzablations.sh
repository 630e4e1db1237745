#!/usr/bin/env bash
# fuzzablations.sh: how soon FuzzEtcd, from an empty corpus, finds a world
# whose checks catch an ablation, against the seeds of the ablation's own
# catalogue scenario and of etcd-chaos, in CPU-seconds.
#
# A measuring tool, not part of CI nor of `go test ./...`; docs/replay.md
# gives the last figures.
#
#   scripts/fuzzablations.sh [-c CAP_SECONDS] [-b CHAOS_CAP_SECONDS] ABLATION...
#
# For each ablation: FuzzEtcd with -fuzz-ablate ABLATION (no seed corpus),
# one worker, a fresh fuzz cache, until it fails or CAP (default 300)
# seconds pass, its CPU time (user+sys of go test and its workers, the
# link of the test binary included) measured by /usr/bin/time; then
# `kubesim run` over seeds 1, 2, ... (3 and 5 members in turn, as
# TestAblations) of the ablation's scenario, and of etcd-chaos, until the
# ablation's check fails or CAP (for etcd-chaos CHAOS_CAP, default 60)
# CPU-seconds are spent. Inputs the fuzzer
# saves under catalogue/testdata/fuzz/FuzzEtcd are removed.
set -euo pipefail
cd "$(dirname "$0")/.."
cap=300 chaoscap=60
if [ "${1:-}" = -c ]; then cap=$2; shift 2; fi
if [ "${1:-}" = -b ]; then chaoscap=$2; shift 2; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/kubesim" ./cmd/kubesim
go test -c -o /dev/null ./catalogue # warm the build cache

# seeds SCENARIO ABLATION CHECK CAP: CPU-seconds and runs until CHECK
# fails or CAP CPU-seconds are spent.
seeds() {
	local spent=0 runs=0 seed=1 m
	while awk -v s="$spent" -v c="$4" 'BEGIN{exit !(s < c)}'; do
		for m in 3 5; do
			runs=$((runs + 1))
			/usr/bin/time -f '%U %S' -o "$tmp/t" "$tmp/kubesim" run --scenario "$1" --members "$m" --seed "$seed" \
				--ablate "$2" --json >"$tmp/r.json" 2>/dev/null || true
			spent=$(tail -n1 "$tmp/t" | awk -v s="$spent" '{print s + $1 + $2}')
			if python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if any(c["name"]==sys.argv[2] and not c["ok"] for c in r["checks"]) else 1)' "$tmp/r.json" "$3"; then
				echo "$spent $runs caught"
				return
			fi
		done
		seed=$((seed + 1))
	done
	echo "$spent $runs not-caught"
}

printf '%-26s %-22s %-16s %-28s %-28s\n' ablation scenario check 'FuzzEtcd (cpu-s, result)' 'scenario seeds (cpu-s, runs)' 
for a in "$@"; do
	line=$("$tmp/kubesim" ablations | grep "^$a ")
	check=$(sed -E 's/.*caught by: ([^ ]+) \(scenario ([^)]+)\).*/\1/' <<<"$line")
	scenario=$(sed -E 's/.*caught by: ([^ ]+) \(scenario ([^)]+)\).*/\2/' <<<"$line")
	before=$(ls catalogue/testdata/fuzz/FuzzEtcd 2>/dev/null || true)
	/usr/bin/time -f '%U %S' -o "$tmp/t" go test ./catalogue -run '^$' -fuzz '^FuzzEtcd$' -fuzztime "${cap}s" \
		-fuzzminimizetime 1x -parallel 1 -test.fuzzcachedir="$tmp/cache-$a" -fuzz-ablate "$a" >"$tmp/fuzz.out" 2>&1 && result=not-found || result=found
	fuzz=$(tail -n1 "$tmp/t" | awk '{print $1 + $2}')
	execs=$(grep -o 'execs: [0-9]*' "$tmp/fuzz.out" | tail -1 || true)
	for f in $(ls catalogue/testdata/fuzz/FuzzEtcd 2>/dev/null || true); do
		if ! grep -qx "$f" <<<"$before"; then rm "catalogue/testdata/fuzz/FuzzEtcd/$f"; fi
	done
	rmdir catalogue/testdata/fuzz/FuzzEtcd catalogue/testdata/fuzz 2>/dev/null || true
	own=$(seeds "$scenario" "$a" "$check" "$cap")
	chaos=$(seeds etcd-chaos "$a" "$check" "$chaoscap")
	printf '%-26s %-22s %-16s fuzz %s %s (%s) | %s: %s | etcd-chaos: %s\n' "$a" "$scenario" "$check" "$fuzz" "$result" "$execs" "$scenario" "$own" "$chaos"
done
