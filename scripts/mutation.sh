#!/usr/bin/env bash
# mutation.sh: mutation testing of the node packages with gremlins, each
# mutant judged by its package's unit tests plus the bug-hunt set, or (-s)
# by the bug-hunt set's scenario runs alone.
#
# A measuring tool, not part of CI nor of `go test ./...`. See
# docs/mutation.md for what it measures and the last figures.
#
#   scripts/mutation.sh [flags] [PACKAGE...]
#
# PACKAGE is a package directory (nodes/raft) or a tree (nodes/etcd/...);
# by default: nodes/raft nodes/etcd/... nodes/apiserver nodes/client/...
# nodes/scheduler nodes/controllers/... nodes/kubelet nodes/kubeproxy
# nodes/apptraffic (test helpers under
# an internal/ directory are left out).
#
# Flags:
#   -o DIR   results directory (default out/mutation)
#   -n       dry run: list the mutants and whether they are covered, test none
#   -u       judge by the unit tests alone (no bughunt build tag)
#   -s       judge by scenario runs alone: the bug-hunt set, no unit test
#            (what a user's world has); results in out/mutation-scenarios
#   -m N     judge a uniform random sample of N of each package's mutants
#            (covered or not) instead of all of them; summary with the 95%
#            interval (scripts/mutationsample.go)
#   -r SEED  the sample's seed (default 1): the same seed on the same
#            source draws the same mutants, so two builds compare
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
scenarios=false
sample=
sampleseed=1
while getopts "o:nusm:r:c:j:t:h" opt; do
  case $opt in
    o) out=$OPTARG ;;
    n) dry=true ;;
    u) tags= ;;
    s) scenarios=true ;;
    m) sample=$OPTARG ;;
    r) sampleseed=$OPTARG ;;
    c) coef=$OPTARG ;;
    j) workers=$OPTARG ;;
    t) budget=$OPTARG ;;
    *) sed -n '2,36p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if $scenarios; then
  [ -n "$tags" ] || { echo "mutation.sh: -s judges by the bug-hunt set and -u by unit tests alone; give one of them" >&2; exit 2; }
  # Only TestBugHunt runs in the mutant's test binary, in gremlins'
  # coverage run too: a mutant no scenario reaches is NOT COVERED.
  export GOFLAGS="$GOFLAGS -run=^TestBugHunt\$"
  [ "$out" = out/mutation ] && out=out/mutation-scenarios
fi
case $sample in
'' | [1-9] | [1-9][0-9]*) ;;
*) echo "mutation.sh: -m $sample: give the sample size as a positive number, e.g. -m 200" >&2; exit 2 ;;
esac

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
  set -- nodes/raft nodes/etcd/... nodes/apiserver nodes/client/... nodes/scheduler nodes/controllers/... nodes/kubelet nodes/kubeproxy nodes/apptraffic
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

# sample_repo PKG NAME TMP draws the package's sample and prints the path
# of a git directory in which gremlins' --diff HEAD^ selects the sampled
# mutants' lines and no other. gremlins has no sampling of its own; its
# --diff REF tests only the mutants on lines that `git diff --merge-base
# REF` shows changed, by names relative to the package directory it
# walks. So the repository's work tree is the package directory (GIT_DIR
# and GIT_WORK_TREE, for gremlins' run alone), its HEAD the package's
# source as it is, and HEAD^ the same source with each sampled line
# altered; with diff.context=0 every changed line is a hunk of its own.
# gremlins then judges every covered mutant on a sampled line; the summary
# reads the sampled ones.
sample_repo() {
  local pkg=$1 name=$2 tmp=$3 repo=$3/sample
  echo "   dry run, then a sample of $sample (seed $sampleseed)" >&2
  TMPDIR=$tmp nice -n 19 "$gremlins" unleash --dry-run --exclude-files / \
    ${tags:+--tags "$tags"} --output "$out/$name.dry.json" "$pkg" >"$out/$name.dry.log" 2>&1
  go run scripts/mutationsample.go -draw "$sample" -seed "$sampleseed" -pkg "$pkg" \
    "$out/$name.dry.json" >"$out/$name.sample"
  mkdir -p "$repo"
  cp -R "$pkg/." "$repo/"
  git -C "$repo" init -q
  cut -d: -f1,2 "$out/$name.sample" | sort -u | while IFS=: read -r file line; do
    sed -i "${line}s/.*/\/\/ sampled mutant line/" "$repo/${file#"$pkg"/}"
  done
  git -C "$repo" add -A
  git -C "$repo" -c user.name=mutation -c user.email=mutation@kubesim commit -q -m "sampled lines altered"
  cp -R "$pkg/." "$repo/"
  git -C "$repo" -c user.name=mutation -c user.email=mutation@kubesim commit -q -a -m "the source under test"
  echo "$repo/.git"
}

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
  gitenv=()
  if [ -n "$sample" ] && ! $dry; then
    gitdir=$(sample_repo "$pkg" "$name" "$tmp")
    args+=(--diff HEAD^)
    gitenv=(GIT_DIR="$gitdir" GIT_WORK_TREE="$PWD/$pkg" GIT_CONFIG_COUNT=1
      GIT_CONFIG_KEY_0=diff.context GIT_CONFIG_VALUE_0=0)
  fi
  # gremlins logs each mutant's status as it goes (PKG.log).
  rc=0
  env TMPDIR="$tmp" "${gitenv[@]}" nice -n 19 "${limit[@]}" "$gremlins" "${args[@]}" "$pkg" >"$out/$name.log" 2>&1 || rc=$?
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

if [ -n "$sample" ] && ! $dry; then
  go run scripts/mutationsample.go -dir "$out" "${pkgs[@]}" | tee "$out/summary.md"
else
  go run scripts/mutationsummary.go -dir "$out" -cover "$out/bughunt.cover" "${pkgs[@]}" | tee "$out/summary.md"
fi
