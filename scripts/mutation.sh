#!/usr/bin/env bash
# mutation.sh: mutation testing of the node packages with gremlins, each
# mutant judged by its package's unit tests plus the bug-hunt set.
#
# A measuring tool, not part of CI nor of `go test ./...`. See
# docs/mutation.md for what it measures and the last figures.
#
#   scripts/mutation.sh [flags] [PACKAGE...]
#
# PACKAGE is a package directory (nodes/raft) or a tree (nodes/etcd/...);
# by default: nodes/raft nodes/etcd/... nodes/apiserver nodes/client/...
# nodes/scheduler nodes/controllers/... nodes/kubelet (test helpers under
# an internal/ directory are left out).
#
# Flags:
#   -o DIR   results directory (default out/mutation)
#   -n       dry run: list the mutants and whether they are covered, test none
#   -u       judge by the unit tests alone (no bughunt build tag)
#   -c N     gremlins' timeout coefficient (default 3: a mutant's test run may
#            take 3 times as long as the coverage run)
#   -j N     gremlins workers (default 1; the machine is shared)
#   -t MIN   stop a package's run after MIN minutes (default: no limit); the
#            summary then reads the mutants judged so far from the log, in
#            gremlins' order (files alphabetically), and marks it partial
#
# GREMLINS_ARGS adds flags to every gremlins run, e.g. GREMLINS_ARGS="--diff
# origin/main" (only lines the branch changed) or "--arithmetic-base=false".
#
# How gremlins is driven. For each package it runs, from the module root,
#
#   gremlins unleash --tags bughunt --workers 1 --exclude-files / \
#       --output DIR/PKG.json PKG_DIR
#
# gremlins first runs `go test -tags bughunt -cover ./PKG_DIR/...` for its
# coverage, then, for each covered mutant, `go test -tags bughunt -failfast
# PKG` on a copy of the module with the mutant applied: exit 1 is KILLED,
# exit 0 LIVED, a build failure NOT VIABLE, a run past the timeout TIMED OUT.
# gremlins cannot filter or add tests, so the bug-hunt set is put into each
# package's own test binary instead: every node package has a
# bughunt_test.go, built only with the bughunt tag, whose TestBugHunt runs
# the matrix of internal/bughunt. With -failfast the unit tests (which run
# first) stop a mutant they kill before the scenarios run.
# --exclude-files / keeps each run to the package's own files: gremlins
# walks the directory tree, and a subpackage is measured on its own.
#
# Outputs, per package (PKG with / turned to _): PKG.json (gremlins' report),
# PKG.log (its log, one line per mutant), PKG.lived.txt (the lived mutants,
# file:line:col and mutation, each marked "scenarios" when the bug-hunt set
# reaches its line or "unit" when only unit tests do), and summary.md with
# the table. bughunt.cover is the bug-hunt set's coverage of nodes/...
set -euo pipefail
cd "$(dirname "$0")/.."

GREMLINS_VERSION=v0.6.0
# go test caches coverage runs: a cached one would set gremlins' timeout (a
# multiple of its duration) near zero. No run is cached.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1"
out=out/mutation
dry=false
tags=bughunt
coef=3
workers=1
budget=
while getopts "o:nuc:j:t:h" opt; do
  case $opt in
    o) out=$OPTARG ;;
    n) dry=true ;;
    u) tags= ;;
    c) coef=$OPTARG ;;
    j) workers=$OPTARG ;;
    t) budget=$OPTARG ;;
    *) sed -n '2,28p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

command -v go >/dev/null || export PATH="$PATH:/usr/local/go/bin"

# gremlins is a tool, not a dependency of the module: install it into a
# cache directory of its own, outside the module (go install pkg@version
# ignores go.mod).
gbin=${GREMLINS_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/kubesim/gremlins-$GREMLINS_VERSION}
if [ ! -x "$gbin/gremlins" ]; then
  echo "installing gremlins $GREMLINS_VERSION into $gbin"
  GOBIN=$gbin go install "github.com/go-gremlins/gremlins/cmd/gremlins@$GREMLINS_VERSION"
fi
gremlins=$gbin/gremlins

if [ $# -eq 0 ]; then
  set -- nodes/raft nodes/etcd/... nodes/apiserver nodes/client/... nodes/scheduler nodes/controllers/... nodes/kubelet
fi
module=$(go list -m)
pkgs=()
for arg in "$@"; do
  for p in $(go list "./${arg#./}"); do
    case $p in */internal/*) continue ;; esac
    pkgs+=("${p#"$module"/}")
  done
done

mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "results in $out; packages: ${pkgs[*]}"

if [ -n "$tags" ] && [ ! -f "$out/bughunt.cover" ]; then
  echo "== the bug-hunt set's coverage of nodes/..."
  nice -n 19 go test ./catalogue -run '^TestBugHunt$' -bughunt -count=1 \
    -coverpkg=./nodes/... -coverprofile="$out/bughunt.cover" | tail -n 2
fi

for pkg in "${pkgs[@]}"; do
  name=${pkg//\//_}
  args=(unleash --workers "$workers" --timeout-coefficient "$coef"
    --exclude-files / --output "$out/$name.json")
  [ -n "$tags" ] && args+=(--tags "$tags")
  # shellcheck disable=SC2206 # GREMLINS_ARGS is a list of words
  args+=(${GREMLINS_ARGS:-})
  $dry && args+=(--dry-run)
  echo "== $pkg ($(date -u +%H:%M:%S))"
  rm -f "$out/$name.json" "$out/$name.seconds"
  # gremlins copies the module into a fresh directory under TMPDIR: give
  # it one outside the module, removed afterwards even when stopped.
  tmp=$(mktemp -d)
  limit=()
  [ -n "$budget" ] && limit=(timeout --signal=INT --kill-after=30 "${budget}m")
  start=$(date +%s)
  # gremlins logs each mutant's status as it goes (PKG.log).
  rc=0
  TMPDIR=$tmp nice -n 19 "${limit[@]}" "$gremlins" "${args[@]}" "$pkg" >"$out/$name.log" 2>&1 || rc=$?
  rm -rf "$tmp"
  echo "$(($(date +%s) - start)) s" >"$out/$name.seconds"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 130 ]; then
    echo "stopped after $budget minutes: $(grep -cE ' (KILLED|LIVED|TIMED OUT|NOT VIABLE) ' "$out/$name.log") mutants judged"
  elif [ "$rc" -ne 0 ]; then
    echo "gremlins failed on $pkg; see $out/$name.log" >&2
    tail -n 5 "$out/$name.log" >&2
  else
    tail -n 5 "$out/$name.log"
  fi
done

go run scripts/mutationsummary.go -dir "$out" -cover "$out/bughunt.cover" "${pkgs[@]}" | tee "$out/summary.md"
