#!/usr/bin/env bash
# tests/lint.sh: clang-tidy (the checks in .clang-tidy, every one an error) and cppcheck over
# every .c file of the library, tools/, experiments/ and tests/ (the fuzz targets too), with
# the flags, include paths and -D defines of a dedicated build's compile_commands.json
# (build/lint: TC_DEBUG_LEVEL=2 so the verifier code is analysed, TC_LINT=ON so the fuzz
# targets are listed without a clang fuzz build). Any finding fails it (exit 1). CI runs it.
#
#   tests/lint.sh             clang-tidy, then cppcheck; a summary line at the end
#   TC_LINT_JOBS=N            files checked in parallel (default: nproc)
#
# A finding that is not a bug is suppressed on its line with the reason:
#   /* NOLINT(check-name): why */                   clang-tidy, on the reported line
#   /* cppcheck-suppress errorId ; why */           cppcheck, on the line before the report
# Full clang-tidy output (the analyzer's paths too) is kept in build/lint/clang-tidy/.
# Missing cppcheck or clang-tidy are installed with apt-get when run as root on Debian, as
# ./run does for its own packages; otherwise it prints the apt-get line and exits 2.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
jobs=${TC_LINT_JOBS:-$(nproc 2>/dev/null || echo 2)}
dir=build/lint

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'lint: %s\n' "$*" >&2; exit 2; }

# The same rules as ./run's ensure_packages.
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
ensure_packages() {
    command -v dpkg-query >/dev/null 2>&1 || {
        say "not a Debian system: make sure these are installed: $*"
        return 0
    }
    local missing=()
    for p in "$@"; do installed "$p" || missing+=("$p"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        printf 'lint: missing packages: %s\nrun as root: apt-get install -y %s\n' "${missing[*]}" "${missing[*]}" >&2
        exit 2
    fi
    say "installing ${missing[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/termcopy-apt.log 2>&1; then
        say "apt-get install failed; updating the package lists and trying again"
        apt-get update -q >>/tmp/termcopy-apt.log 2>&1 || die "apt-get update failed (see /tmp/termcopy-apt.log)"
        apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/termcopy-apt.log 2>&1 ||
            die "could not install ${missing[*]} (see /tmp/termcopy-apt.log)"
    fi
}

# What configuring needs (as ./run test; erlang-dev's libei, so that experiments/codecpeer.c is
# in a target and linted), and the two linters.
ensure_packages cmake make gcc pkg-config check libunwind-dev erlang-dev cppcheck clang-tidy
start=$SECONDS

# compile_commands.json only: nothing is built.
mkdir -p "$dir"
say "configuring $dir (compile_commands.json)"
cmake -S "$top" -B "$dir" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Debug -DTC_DEBUG_LEVEL=2 \
    -DTC_LINT=ON >"$dir.configure.log" 2>&1 || {
    cat "$dir.configure.log" >&2
    die "cmake configure failed"
}
db=$dir/compile_commands.json

# Every .c file of these folders must be in the database, so none is skipped unseen.
mapfile -t files < <(sed -n 's/^ *"file": "\(.*\)",\{0,1\}$/\1/p' "$db" | sed "s|^$top/||" | sort -u)
. tests/floors.sh
read -r -a floors <<<"$(tc_floors .)"
mapfile -t sources < <(find "${floors[@]}" tools experiments tests -name '*.c' | sort)
unlisted=$(comm -13 <(printf '%s\n' "${files[@]}") <(printf '%s\n' "${sources[@]}"))
[ -z "$unlisted" ] || die "not in $db (add them to a CMake target): $unlisted"

# ---- clang-tidy: one process per file, $jobs at a time ------------------------------------
logs=$dir/clang-tidy
rm -rf "$logs"
mkdir -p "$logs"
say "clang-tidy: ${#files[@]} files, $jobs at a time"
t0=$SECONDS
tidy_status=0
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} sh -c '
    log="$1/$(echo "$2" | tr / _).log"
    clang-tidy -p "$0" --quiet "$2" >"$log" 2>&1 || echo "$2" >>"$1/failed"' "$dir" "$logs" {} || tidy_status=1
[ -f "$logs/failed" ] && tidy_status=1
# One line per finding: a header's finding is reported by every file that includes it.
tidy_findings=$(cat "$logs"/*.log | sed 's/\x1b\[[0-9;]*m//g' | grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): ' |
    sed "s|^$top/||; s|[^/ ]*/\.\./||g" | sort -u || true)
tidy_count=$(printf '%s' "$tidy_findings" | grep -c . || true)
tidy_time=$((SECONDS - t0))
if [ "$tidy_status" -ne 0 ]; then
    [ -n "$tidy_findings" ] && printf '%s\n' "$tidy_findings"
    if [ "$tidy_count" -eq 0 ]; then
        # failed without a finding line: a crash or a bad command line; show the logs
        while read -r f; do cat "$logs/$(echo "$f" | tr / _).log"; done <"$logs/failed"
    fi
fi

# ---- cppcheck: the same database ----------------------------------------------------------
say "cppcheck: ${#files[@]} files, $jobs at a time"
t0=$SECONDS
mkdir -p "$dir/cppcheck"
cppcheck_status=0
cppcheck_out=$(cppcheck --project="$db" --std=c11 --library=posix --enable=warning,portability,performance \
    --inline-suppr --error-exitcode=1 -j "$jobs" --cppcheck-build-dir="$dir/cppcheck" --quiet \
    --template='{file}:{line}:{column}: {severity}: {message} [{id}]' 2>&1) || cppcheck_status=1
cppcheck_out=$(printf '%s' "$cppcheck_out" | sed "s|^$top/||" | sort -u)
cppcheck_count=$(printf '%s' "$cppcheck_out" | grep -cE '^[^ ]+:[0-9]+:[0-9]+: ' || true)
cppcheck_time=$((SECONDS - t0))
[ -n "$cppcheck_out" ] && printf '%s\n' "$cppcheck_out"

printf '\nlint: clang-tidy %s finding(s) in %ss; cppcheck %s finding(s) in %ss; %s files; %ss in all\n' \
    "$tidy_count" "$tidy_time" "$cppcheck_count" "$cppcheck_time" "${#files[@]}" "$((SECONDS - start))"
if [ "$tidy_status" -ne 0 ] || [ "$cppcheck_status" -ne 0 ]; then
    [ "$tidy_status" -ne 0 ] && printf 'lint: clang-tidy failed (full output: %s/)\n' "$logs"
    [ "$cppcheck_status" -ne 0 ] && printf 'lint: cppcheck failed\n'
    exit 1
fi
printf 'lint: clean\n'
