#!/usr/bin/env bash
# experiments/beam/eras/build.sh: its argument handling and its patches, without building a VM
# (a build takes minutes and the public source, which CI does not have). Where the source mirror
# is on this machine (TC_ERAS_MIRROR, default /work/.mirror/mfoemmel+erlang-otp/repo), every
# patch must also apply cleanly to its release; without it that check is skipped, never failed.
# $1, $2: unused (the build directory and the test data of the other cli tests).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../experiments/beam/eras/build.sh"
patches="$here/../experiments/beam/eras/patches"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fails=$((fails + 1)); echo "FAIL: $1"; fi; }
cache="$tmp/cache"
b() { bash "$build" --cache "$cache" "$@" >"$tmp/o" 2>"$tmp/e"; }
one_line() { [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q '^build.sh: ' "$tmp/e"; }

# ---- no source: one line naming what it needs, exit 2
b; rc=$?
[ $rc -eq 2 ] && one_line; ok=$?; check "no source: exit 2 with one line (rc $rc: $(head -c 300 "$tmp/e"))" $ok
grep -q 'e4bd6dec3.*7b734f235' "$tmp/e" && grep -q 'otp_src_R10B-2.tar.gz' "$tmp/e" && grep -q 'otp_src_R13B01.tar.gz' "$tmp/e"
ok=$?; check "no source: names the commits and the tarballs" $ok
b r13b01-smp; rc=$?
[ $rc -eq 2 ] && one_line && grep -q 'e4bd6dec3' "$tmp/e"; ok=$?; check "a VM but no source: exit 2, the same line (rc $rc)" $ok

# ---- bad arguments and sources: one line each, exit 2, nothing written
mkdir -p "$tmp/nototp/erts" "$tmp/oldotp/erts" "$tmp/fake13/erts" "$tmp/fake10/erts"
echo "VSN = 5.6.5" >"$tmp/oldotp/erts/vsn.mk"
printf 'VSN = 5.7.2\nSYSTEM_VSN = R13B01\n' >"$tmp/fake13/erts/vsn.mk"
printf 'VSN = 5.4.3\nSYSTEM_VSN = R10B\n' >"$tmp/fake10/erts/vsn.mk"
echo "not a tarball" >"$tmp/junk.tar.gz"
mkdir -p "$tmp/tarball/otp_src_R9/erts" && echo "VSN = 5.3" >"$tmp/tarball/otp_src_R9/erts/vsn.mk" &&
    tar -czf "$tmp/otp_src_R9.tar.gz" -C "$tmp/tarball" otp_src_R9
git init -q "$tmp/emptygit" 2>/dev/null
while IFS='|' read -r what args; do
    # shellcheck disable=SC2086 # the words are the arguments
    b $args; rc=$?
    [ $rc -eq 2 ] && one_line; ok=$?; check "$what: exit 2 with one line (rc $rc: $(head -c 200 "$tmp/e"))" $ok
done <<EOT
unknown VM|$tmp/fake13 r9b
unknown build of a VM|$tmp/fake13 r13b01-plain@chain3
a folder that is not an OTP source|$tmp/nototp
an OTP source of another release|$tmp/oldotp
a file that is not a tarball|$tmp/junk.tar.gz
a tarball of another release|$tmp/otp_src_R9.tar.gz
a git repository without the commits|$tmp/emptygit
a VM whose release no source holds|$tmp/fake13 r10b-2-64
unknown option|--bogus $tmp/fake13
--cache without a directory|$tmp/fake13 --cache
EOT
[ ! -e "$cache" ]; check "nothing written on bad input" $?

# ---- --list and --help
b --list; rc=$?
[ $rc -eq 0 ] && [ "$(tr '\n' ' ' <"$tmp/o")" = "r10b-2-32 r10b-2-64 r13b01-plain r13b01-smp r13b01-plain@grow1 r13b01-smp@grow1 " ]
ok=$?; check "--list: the six VMs, exit 0 (rc $rc: $(tr '\n' ' ' <"$tmp/o"))" $ok
b --help; rc=$?
[ $rc -eq 0 ] && grep -q 'SOURCE' "$tmp/o" && grep -q 'NAME=ROOT' "$tmp/o" && ! grep -q '^set ' "$tmp/o"
ok=$?; check "--help: the usage, exit 0 (rc $rc)" $ok

# ---- --dry-run on a fake R13B01 folder: the steps, exit 0, nothing built or written
b --dry-run "$tmp/fake13"; rc=$?
[ $rc -eq 0 ]; ok=$?; check "--dry-run: exit 0 (rc $rc: $(tail -n 1 "$tmp/e"))" $ok
for step in "r13b01: extract" "r13b01: patch beam_makeops_defined_array.patch" "r13b01: configure: .*--enable-smp-support" \
    "r13b01: beam: make -C erts/emulator opt TYPE=opt FLAVOR=plain" "r13b01: beam.smp: make .*FLAVOR=smp" \
    "r13b01: bootstrap: make bootstrap_setup" "r13b01@grow1: copy" "r13b01@grow1: patch grow1.patch"; do
    grep -q "^run   $step" "$tmp/o"; ok=$?; check "--dry-run prints the step '$step'" $ok
done
! grep -q 'r10b' "$tmp/o"; ok=$?; check "--dry-run: no R10B-2 step without an R10B-2 source" $ok
grep -q 'R10B-2' "$tmp/e"; ok=$?; check "--dry-run: says R10B-2 is left out" $ok
[ ! -e "$cache" ]; check "--dry-run: nothing written" $?
b --dry-run "$tmp/fake10" "$tmp/fake13" r10b-2-64 r13b01-smp; rc=$?
[ $rc -eq 0 ] && grep -q '^run   r10b-2-64: configure: .*--disable-threads' "$tmp/o" && grep -q '^run   r10b-2-64: etc: .*inet_gethost' "$tmp/o" &&
    grep -q '^run   r10b-2-64: patch export_put_index.patch' "$tmp/o" && ! grep -q 'r10b-2-32\|grow1' "$tmp/o"
ok=$?; check "--dry-run with two sources and two VMs: their trees' steps only (rc $rc)" $ok

# ---- every patch: a header (a summary line, File: and Change: before the diff) and a diff
for p in "$patches"/*/*.patch; do
    n=${p#"$patches"/}
    head -n 1 "$p" | grep -q "^$(basename "$p" .patch)"': ' &&
        sed -n '1,/^--- a\//p' "$p" | grep -q '^File: ' && sed -n '1,/^--- a\//p' "$p" | grep -q '^Change: ' &&
        grep -q '^--- a/erts/' "$p" && grep -q '^+++ b/erts/' "$p" && grep -q '^@@ ' "$p"
    ok=$?; check "$n: a header (name: summary, File:, Change:) and a unified diff" $ok
done
[ "$(find "$patches" -name '*.patch' | wc -l)" -ge 9 ]; check "the patches are there (r10b-2, r13b01, r13b01@grow1)" $?

# ---- every patch applies cleanly to its release (only where the mirror is)
mirror=${TC_ERAS_MIRROR:-/work/.mirror/mfoemmel+erlang-otp/repo}
[ -d "$mirror/.git" ] && mirror="$mirror/.git"
if command -v git >/dev/null 2>&1 && git --git-dir="$mirror" cat-file -e "e4bd6dec3ddf632d4d5fce38e5f69af0aa685318^{commit}" 2>/dev/null &&
    git --git-dir="$mirror" cat-file -e "7b734f235f5feb9958f1f45ab243812bd47958a6^{commit}" 2>/dev/null; then
    for rel in r10b-2:e4bd6dec3ddf632d4d5fce38e5f69af0aa685318 r13b01:7b734f235f5feb9958f1f45ab243812bd47958a6; do
        name=${rel%%:*} commit=${rel#*:}
        for dir in "$patches/$name" "$patches/$name"@*; do
            [ -d "$dir" ] || continue
            for p in "$dir"/*.patch; do
                rm -rf "$tmp/tree" && mkdir -p "$tmp/tree"
                # the files the patch touches, as the release has them
                files=$(sed -n 's/^+++ b\/\([^[:space:]]*\).*/\1/p' "$p" | sort -u)
                # shellcheck disable=SC2086 # one path per word
                git --git-dir="$mirror" archive "$commit" $files | tar -x -C "$tmp/tree"
                (cd "$tmp/tree" && patch -p1 --forward --batch --dry-run <"$p") >"$tmp/patch.log" 2>&1 &&
                    ! grep -qi 'fuzz\|offset\|reject' "$tmp/patch.log"
                ok=$?; check "${p#"$patches"/} applies cleanly to ${commit:0:9} ($(tr '\n' ' ' <"$tmp/patch.log" | head -c 200))" $ok
            done
        done
    done
    # the patches of one release, all together, in the order build.sh applies them
    for rel in r10b-2:e4bd6dec3ddf632d4d5fce38e5f69af0aa685318 r13b01:7b734f235f5feb9958f1f45ab243812bd47958a6; do
        name=${rel%%:*} commit=${rel#*:}
        rm -rf "$tmp/tree" && mkdir -p "$tmp/tree"
        files=$(cat "$patches/$name"/*.patch | sed -n 's/^+++ b\/\([^[:space:]]*\).*/\1/p' | sort -u)
        # shellcheck disable=SC2086 # one path per word
        git --git-dir="$mirror" archive "$commit" $files | tar -x -C "$tmp/tree"
        ok=0
        for p in "$patches/$name"/*.patch; do
            (cd "$tmp/tree" && patch -p1 --forward --batch <"$p") >"$tmp/patch.log" 2>&1 || ok=1
        done
        check "$name: all its patches apply one after the other" $ok
    done
else
    echo "no source mirror at $mirror: the patches' application is not checked (TC_ERAS_MIRROR=DIR)"
fi

echo "cli_eras_build: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
