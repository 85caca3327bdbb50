#!/usr/bin/env bash
# experiments/beam/eras/build.sh — builds the seeds' own Erlang VMs (R10B-2, R13B01) from their
# public source, for experiments/beam/eras/run.sh.
#
# usage: experiments/beam/eras/build.sh [--cache DIR] [--list] [--dry-run] [--help] SOURCE... [VM...]
#   SOURCE      where the releases come from, in any mix; each release is taken from the first
#               SOURCE that holds it, told by its erts/vsn.mk (VSN 5.4.3: R10B-2, 5.7.2: R13B01):
#                 a git repository (bare or not) with the commits of github.com/mfoemmel/erlang-otp
#                   e4bd6dec3 'importing R10B-2' and 7b734f235 'importing R13B01' (git archive)
#                 a tarball otp_src_R10B-2.tar.gz or otp_src_R13B01.tar.gz (erlang.org/download)
#                 a folder holding an extracted source tree
#   VM          r10b-2-32 r10b-2-64 r13b01-plain r13b01-smp r13b01-plain@grow1 r13b01-smp@grow1
#               (default: every VM of the releases the sources hold)
#   --cache DIR the trees, logs and provenance (default build/eras in the checkout)
#   --list      print the VM names and exit
#   --dry-run   check the arguments and the sources, print the steps it would run and those it
#               would reuse (stdout), build and write nothing
#
# On success it prints one NAME=ROOT line per VM on stdout, exactly run.sh's arguments, and the
# path of a provenance file (the '# key: value' lines run.sh --provenance copies into its CSV:
# source, patches and their sha256, configure line, CFLAGS, the flags beam_emu.c got, build
# seconds, compiler) on stderr, with the progress and each step's time:
#     experiments/beam/eras/run.sh --provenance build/eras/provenance $(experiments/beam/eras/build.sh SOURCE)
# Exit status: 0 built (or a dry run); 1 a step failed (its log is named); 2 a bad argument or
# source, or no source.
#
# The ROOTs are build trees under DIR/trees: r10b-2-64 and r10b-2-32 (R10B-2 for 64- and 32-bit
# words: bin/<target>/beam and inet_gethost, the tree's own bootstrap/), r13b01 (bin/<target>/beam
# and beam.smp, bootstrap/bin/erl) and r13b01@grow1 (a copy of the built r13b01 tree with
# patches/r13b01@grow1/ applied and erl_db_hash.c recompiled for both flavors). Per tree the steps
# are: extract (or copy), patch (patches/RELEASE/*.patch in name order, patch -p1), configure,
# make; each leaves a stamp whose key chains the source's identity (git commit, tarball sha256,
# a folder's contents sha256), every patch's sha256, the step's command and environment and the
# compiler's version. A step whose stamp matches is reused; a step whose stamp differs restarts
# its tree from a fresh extract (make would not rebuild objects for new flags or a new patch).
# Each VM is then booted and made to evaluate a bignum and an ETS table. The provenance file
# describes the VMs of this run. Missing packages (gcc, make, perl, m4, patch, libncurses-dev,
# and gcc-multilib for r10b-2-32) are installed with apt-get when run as root; otherwise named.
# r10b-2-32 needs gcc -m32 and a kernel that runs 32-bit programs (configure and make run some):
# on a kernel without them it is left out unless named, then built anyway, and is never printed
# as NAME=ROOT (run.sh then takes --keep r10b-2-32).
# Measured on the shared 2-core machine (nice -n 10, make -j2, one tree after the other): R10B-2
# about 70 s per word size, R13B01 3.2-3.3 min, its grow1 copy 4-5 s; all six VMs 5.6-5.8 min.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
export LC_ALL=C

say() { printf 'build.sh: %s\n' "$*" >&2; }
usage_error() { say "$*"; exit 2; }
failed() { say "$*"; exit 1; }

all_vms=(r10b-2-32 r10b-2-64 r13b01-plain r13b01-smp r13b01-plain@grow1 r13b01-smp@grow1)
# The public commits (github.com/mfoemmel/erlang-otp imports every release as one commit).
declare -A commit_of=([r10b-2]=e4bd6dec3ddf632d4d5fce38e5f69af0aa685318 [r13b01]=7b734f235f5feb9958f1f45ab243812bd47958a6)
declare -A vsn_of=([r10b-2]=5.4.3 [r13b01]=5.7.2)
declare -A title_of=([r10b-2]=R10B-2 [r13b01]=R13B01)
need_source="no source given: pass a git repository holding github.com/mfoemmel/erlang-otp's commits e4bd6dec3 ('importing R10B-2', erts 5.4.3) and 7b734f235 ('importing R13B01', erts 5.7.2) (git clone https://github.com/mfoemmel/erlang-otp), or the tarballs otp_src_R10B-2.tar.gz and otp_src_R13B01.tar.gz (https://erlang.org/download/), or their extracted folders"

cache="$top/build/eras" list=0 dry=0 sources=() vms=()
while [ $# -gt 0 ]; do
    case "$1" in
    --cache) [ $# -ge 2 ] && [ -n "$2" ] || usage_error "--cache needs a directory"; cache=$2; shift ;;
    --list) list=1 ;;
    --dry-run) dry=1 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) usage_error "unknown option '$1' (see --help)" ;;
    *)
        # an existing file or folder is a source; anything else must name a VM
        if [ -e "$1" ]; then
            sources+=("$1")
        else
            case " ${all_vms[*]} " in
            *" $1 "*) case " ${vms[*]+${vms[*]}} " in *" $1 "*) ;; *) vms+=("$1") ;; esac ;;
            *) usage_error "'$1' is neither a VM (${all_vms[*]}) nor an existing source file or folder" ;;
            esac
        fi ;;
    esac
    shift
done
if [ $list -eq 1 ]; then printf '%s\n' "${all_vms[@]}"; exit 0; fi
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
[ ${#sources[@]} -gt 0 ] || usage_error "$need_source"

# ---- the sources: which release each holds, and its identity (the stamps' root)
declare -A src_kind src_path src_id src_text
vsn_in() { sed -n 's/^VSN[[:space:]]*=[[:space:]]*\([0-9.]*\).*/\1/p' | head -n 1; }
release_of_vsn() { case "$1" in 5.4.3) echo r10b-2 ;; 5.7.2) echo r13b01 ;; esac; }
for s in "${sources[@]}"; do
    if [ -d "$s" ]; then abs=$(cd "$s" && pwd); else abs=$(cd "$(dirname "$s")" && pwd)/$(basename "$s"); fi
    found=""
    if [ -d "$s" ]; then
        gd="$abs"; [ -d "$abs/.git" ] && gd="$abs/.git"
        if command -v git >/dev/null 2>&1 && git --git-dir="$gd" rev-parse --git-dir >/dev/null 2>&1; then
            for rel in r10b-2 r13b01; do
                c=${commit_of[$rel]}
                git --git-dir="$gd" cat-file -e "$c^{commit}" 2>/dev/null || continue
                v=$(git --git-dir="$gd" show "$c:erts/vsn.mk" 2>/dev/null | vsn_in)
                [ "$v" = "${vsn_of[$rel]}" ] || usage_error "$s: commit ${c:0:9}'s erts/vsn.mk says VSN '$v', not ${vsn_of[$rel]}"
                found="$found $rel"
                [ -n "${src_kind[$rel]:-}" ] && continue
                src_kind[$rel]=git src_path[$rel]=$gd src_id[$rel]="git commit $c"
                src_text[$rel]="${title_of[$rel]} (erts ${vsn_of[$rel]}): git archive of commit $c '$(git --git-dir="$gd" log -1 --format=%s "$c")' (github.com/mfoemmel/erlang-otp) from $gd"
            done
        fi
        if [ -z "$found" ]; then
            v=""
            [ -r "$abs/erts/vsn.mk" ] && v=$(vsn_in <"$abs/erts/vsn.mk")
            rel=$(release_of_vsn "$v")
            [ -n "$rel" ] || usage_error "$s is not an OTP source: no git commit e4bd6dec3 or 7b734f235, and no erts/vsn.mk with VSN 5.4.3 (R10B-2) or 5.7.2 (R13B01)"
            found=" $rel"
            if [ -z "${src_kind[$rel]:-}" ]; then
                # a folder's identity is its contents: any edited file rebuilds
                sum=$(cd "$abs" && find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-64)
                src_kind[$rel]=folder src_path[$rel]=$abs src_id[$rel]="folder sha256 $sum"
                src_text[$rel]="${title_of[$rel]} (erts $v): the folder $abs (its files' sha256 listing hashes to $sum)"
            fi
        fi
    elif [ -f "$s" ]; then
        first=$(tar -tf "$abs" 2>/dev/null | head -n 1)
        topdir=${first%%/*}
        v=""
        [ -n "$topdir" ] && v=$(tar -xOf "$abs" "$topdir/erts/vsn.mk" 2>/dev/null | vsn_in)
        rel=$(release_of_vsn "$v")
        [ -n "$rel" ] || usage_error "$s is not an OTP source tarball: no */erts/vsn.mk with VSN 5.4.3 (R10B-2) or 5.7.2 (R13B01)"
        found=" $rel"
        if [ -z "${src_kind[$rel]:-}" ]; then
            sum=$(sha256sum "$abs" | cut -c1-64)
            src_kind[$rel]=tarball src_path[$rel]=$abs src_id[$rel]="tarball sha256 $sum"
            src_text[$rel]="${title_of[$rel]} (erts $v): the tarball $(basename "$abs") (sha256 $sum)"
        fi
    else
        usage_error "$s is neither a folder nor a file"
    fi
    [ -n "$found" ] || usage_error "$s: a git repository without commit e4bd6dec3 (R10B-2) or 7b734f235 (R13B01)"
done

release_of_vm() { case "$1" in r10b-2-*) echo r10b-2 ;; *) echo r13b01 ;; esac; }
explicit=1
if [ ${#vms[@]} -eq 0 ]; then
    explicit=0
    for v in "${all_vms[@]}"; do [ -z "${src_kind[$(release_of_vm "$v")]:-}" ] || vms+=("$v"); done
    for rel in r10b-2 r13b01; do
        [ -n "${src_kind[$rel]:-}" ] || say "no source holds ${title_of[$rel]} (erts ${vsn_of[$rel]}): its VMs are left out"
    done
else
    for v in "${vms[@]}"; do
        rel=$(release_of_vm "$v")
        [ -n "${src_kind[$rel]:-}" ] || usage_error "$v: no source given holds ${title_of[$rel]} (erts ${vsn_of[$rel]}, commit ${commit_of[$rel]:0:9})"
    done
fi
wants() { case " ${vms[*]} " in *" $1 "*) return 0 ;; esac; return 1; }

# ---- the build's fixed parameters. CFLAGS for gcc 12 on code written for gcc 3 and 4:
# -fwrapv: big.c's bignum arithmetic relies on signed overflow wrapping (R10B-2 with big.c
#   compiled without it says 16#7fffffffffffffff + 1 is 0); -fcommon: globals defined in several files, as gcc
#   merged them before gcc 10; -std=gnu89: the C dialect the code was written in (gcc 12's
#   default is gnu17); -fno-strict-aliasing: terms are type-punned words. Non-PIE (-fno-pie -no-pie, LDFLAGS
#   -no-pie): executables were linked so when these releases were current.
cflags="-O2 -fwrapv -fcommon -std=gnu89 -fno-strict-aliasing -fno-pie -no-pie"
ldflags="-no-pie"
jobs=2
declare -A configure_of=(
    [r10b-2]="--disable-hipe --disable-threads --without-ssl"
    [r13b01]="--disable-hipe --enable-threads --enable-smp-support --without-ssl")
gcc_version=$(gcc --version 2>/dev/null | head -n 1)
os=$(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release 2>/dev/null)

patches_of() { local f; for f in "$here/patches/$1"/*.patch; do [ -f "$f" ] && echo "$f"; done; }
sha() { sha256sum | cut -c1-64; }

# ---- tools: packages the build needs (installed with apt-get when run as root on Debian)
missing=()
for t in gcc:gcc make:make perl:perl m4:m4 patch:patch tar:tar; do
    command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t#*:}")
done
# the termcap functions the tty driver links with (configure stops without them)
if command -v dpkg-query >/dev/null 2>&1 && ! dpkg-query -W -f='${Status}' libncurses-dev 2>/dev/null | grep -q 'install ok installed'; then
    missing+=(libncurses-dev)
fi
probe=$(mktemp -d "${TMPDIR:-/tmp}/eras-build.XXXXXX")
trap 'rm -rf "$probe"' EXIT
printf '#include <stdio.h>\nint main(void) { printf("%%d\\n", (int) sizeof(void *)); return 0; }\n' >"$probe/hello.c"
m32_builds() { gcc -m32 -o "$probe/hello32" "$probe/hello.c" >/dev/null 2>&1; }
if wants r10b-2-32 && ! m32_builds; then missing+=(gcc-multilib); fi
if [ ${#missing[@]} -gt 0 ]; then
    if [ $dry -eq 1 ]; then
        say "missing: ${missing[*]} (a real run installs them with apt-get as root)"
    elif [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        mkdir -p "$cache/logs" || failed "cannot create $cache/logs"
        say "apt-get install ${missing[*]} (log: $cache/logs/apt-get.log)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >"$cache/logs/apt-get.log" 2>&1 ||
            { DEBIAN_FRONTEND=noninteractive apt-get update >>"$cache/logs/apt-get.log" 2>&1 &&
                DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$cache/logs/apt-get.log" 2>&1; } ||
            failed "cannot install ${missing[*]} (see $cache/logs/apt-get.log)"
    else
        # 32-bit words alone need gcc-multilib: without it the other VMs are still built
        rest=()
        for p in "${missing[@]}"; do [ "$p" = gcc-multilib ] || rest+=("$p"); done
        [ ${#rest[@]} -eq 0 ] || failed "missing ${rest[*]}: apt-get install ${missing[*]} (as root)"
    fi
fi
# r10b-2-32: the compiler must make 32-bit programs, the kernel may not run them
m32_runs=0
if wants r10b-2-32; then
    if ! m32_builds; then
        if [ $dry -eq 1 ]; then
            :
        elif [ $explicit -eq 1 ]; then
            failed "r10b-2-32: gcc -m32 cannot link a program: apt-get install gcc-multilib (as root)"
        else
            say "r10b-2-32 left out: gcc -m32 cannot link a program (apt-get install gcc-multilib as root)"
            keep=(); for v in "${vms[@]}"; do [ "$v" = r10b-2-32 ] || keep+=("$v"); done; vms=("${keep[@]}")
        fi
    elif [ "$("$probe/hello32" 2>/dev/null)" = 4 ]; then
        m32_runs=1
    elif [ $explicit -eq 1 ]; then
        # configure and the build run 32-bit programs of their own (its tests, hipe_mkliterals):
        # asked for by name, it is tried, and a failing step says so
        say "r10b-2-32: this kernel does not run 32-bit programs (a gcc -m32 hello fails): building it anyway, which may fail where configure or make run a 32-bit program; it cannot be run here, so run.sh needs --keep r10b-2-32"
    else
        say "r10b-2-32 left out: this kernel does not run 32-bit programs (a gcc -m32 hello fails), which configure and make run too; run.sh needs --keep r10b-2-32 (name r10b-2-32 to try the build anyway)"
        keep=(); for v in "${vms[@]}"; do [ "$v" = r10b-2-32 ] || keep+=("$v"); done; vms=("${keep[@]}")
    fi
fi
[ ${#vms[@]} -gt 0 ] || failed "no VM left to build"

# ---- the trees each VM needs, in build order
trees=()
wants r10b-2-64 && trees+=(r10b-2-64)
wants r10b-2-32 && trees+=(r10b-2-32)
if wants r13b01-plain || wants r13b01-smp || wants r13b01-plain@grow1 || wants r13b01-smp@grow1; then trees+=(r13b01); fi
if wants r13b01-plain@grow1 || wants r13b01-smp@grow1; then trees+=(r13b01@grow1); fi
tree_of() { case "$1" in r10b-2-*) echo "$1" ;; *@grow1) echo r13b01@grow1 ;; *) echo r13b01 ;; esac; }

# A wrapper named gcc that adds -m32, so that CC is still plain `gcc`: erts/emulator/Makefile.in
# picks its optimisation flags with ifeq ($(CC), gcc) and would build beam_emu.c at -O0 for
# CC="gcc -m32". And a termcap of functions that do nothing (tgetent fails): configure requires
# one, no 32-bit ncurses is installed, and the tty driver is never started (run.sh runs -noshell).
tools32="$cache/tools/m32"
make_tools32() {
    local real_gcc
    real_gcc=$(command -v gcc) || return 1
    mkdir -p "$tools32" &&
        printf '#!/bin/sh\n# gcc for 32-bit words, under the name the old Makefiles test for\nexec %s -m32 "$@"\n' "$real_gcc" >"$tools32/gcc" &&
        chmod 755 "$tools32/gcc" &&
        cat >"$tools32/termcap.c" <<'EOF' &&
/* A termcap that knows no terminal: the tty driver falls back, the VMs run -noshell anyway. */
int tgetent(char *bp, const char *name) { (void) bp; (void) name; return 0; }
int tgetflag(const char *id) { (void) id; return 0; }
int tgetnum(const char *id) { (void) id; return -1; }
char *tgetstr(const char *id, char **area) { (void) id; (void) area; return 0; }
int tputs(const char *s, int n, int (*put)(int)) { (void) s; (void) n; (void) put; return 0; }
EOF
        "$real_gcc" -m32 -O2 -c "$tools32/termcap.c" -o "$tools32/termcap.o" &&
        rm -f "$tools32/libtermcap.a" && ar rcs "$tools32/libtermcap.a" "$tools32/termcap.o"
}

# ---- the steps of a tree: parallel arrays of name, description (the stamp's input: the
# command and everything that changes its output) and command (a function and its arguments)
step_names=() step_descs=() step_cmds=()
add_step() { step_names+=("$1") step_descs+=("$2") step_cmds+=("$3"); }
plan_tree() {
    local tree=$1 rel p env32=""
    step_names=() step_descs=() step_cmds=()
    case "$tree" in
    r13b01@grow1)
        add_step copy "a copy of the built r13b01 tree into $treedir (its paths rewritten): $(final_key r13b01)" "do_copy"
        for p in $(patches_of r13b01@grow1); do
            add_step "patch $(basename "$p")" "patch -p1 < $(basename "$p") sha256 $(sha <"$p")" "do_patch ${p#"$here/patches/"}"
        done
        add_step beam "make -C erts/emulator opt TYPE=opt FLAVOR=plain -j$jobs" "do_make emulator plain"
        add_step beam.smp "make -C erts/emulator opt TYPE=opt FLAVOR=smp -j$jobs" "do_make emulator smp"
        add_step bootstrap "make bootstrap_setup (bootstrap/bin/erl for this tree)" "do_bootstrap"
        return ;;
    esac
    rel=${tree%-32}; rel=${rel%-64}
    [ "$tree" = r10b-2-32 ] && env32=" CC=gcc (gcc -m32 wrapper) under setarch i686, LDFLAGS -L a do-nothing libtermcap.a"
    add_step extract "extract ${src_id[$rel]}" "do_extract $rel"
    for p in $(patches_of "$rel"); do
        add_step "patch $(basename "$p")" "patch -p1 < $(basename "$p") sha256 $(sha <"$p")" "do_patch ${p#"$here/patches/"}"
    done
    # configure writes the tree's absolute path into its Makefiles: the path is part of the key
    add_step configure "CFLAGS='$cflags' LDFLAGS='$ldflags'$env32 ./configure ${configure_of[$rel]} in $treedir; $gcc_version" "do_configure $rel"
    case "$rel" in
    r10b-2)
        add_step beam "make -C erts/emulator opt TYPE=opt -j$jobs" "do_make emulator"
        add_step etc "make -C erts/etc/common opt TYPE=opt (inet_gethost)" "do_make etc" ;;
    r13b01)
        add_step beam "make -C erts/emulator opt TYPE=opt FLAVOR=plain -j$jobs" "do_make emulator plain"
        add_step beam.smp "make -C erts/emulator opt TYPE=opt FLAVOR=smp -j$jobs" "do_make emulator smp"
        add_step etc "make -C erts/etc/common opt TYPE=opt" "do_make etc"
        add_step bootstrap "make bootstrap_setup (bootstrap/bin/erl)" "do_bootstrap" ;;
    esac
}
# keys: each step's the sha256 of the previous step's key and its own description
step_keys=()
chain_keys() {
    local i k=""
    step_keys=()
    for i in "${!step_names[@]}"; do
        k=$(printf '%s\n%s\n' "$k" "${step_descs[$i]}" | sha)
        step_keys+=("$k")
    done
}
declare -A final_keys
final_key() { echo "${final_keys[$1]}"; }

# ---- the step commands (run in a subshell, in the tree, output to the step's log)
step_env() {
    export ERL_TOP="$treedir" CFLAGS="$cflags" LDFLAGS="$ldflags" CC=gcc
    if [ "$tree" = r10b-2-32 ]; then
        export PATH="$tools32:$PATH" LDFLAGS="$ldflags -L$tools32"
        arch=(setarch i686)
    else
        arch=()
    fi
}
do_extract() {
    local rel=$1
    rm -rf "$treedir" && mkdir -p "$treedir" || return 1
    case "${src_kind[$rel]}" in
    git) git --git-dir="${src_path[$rel]}" archive "${commit_of[$rel]}" | tar -x -C "$treedir" ;;
    tarball) tar -xf "${src_path[$rel]}" -C "$treedir" --strip-components=1 ;;
    folder) cp -a "${src_path[$rel]}/." "$treedir/" && rm -rf "$treedir/.git" ;;
    esac
}
# (a patch is named by its path under patches/: the command is split into words)
do_patch() { (cd "$treedir" && patch -p1 --forward --batch <"$here/patches/$1"); }
# shellcheck disable=SC2086 # the configure flags are words
do_configure() { (cd "$treedir" && step_env && nice -n 10 ${arch[@]+"${arch[@]}"} ./configure ${configure_of[$1]}); }
do_make() {
    (
        cd "$treedir" && step_env || exit 1
        case "$1" in
        emulator)
            # beam_emu.c compiled afresh, so that its flags are in this log (not in the grow1
            # copy: there only the patched file is recompiled)
            if [ "$tree" != r13b01@grow1 ]; then
                local where=(-name beam_emu.o)
                [ -z "${2:-}" ] || where+=(-path "*/opt/$2/*")
                find erts "${where[@]}" -delete 2>/dev/null
            fi
            nice -n 10 ${arch[@]+"${arch[@]}"} make -j"$jobs" -C erts/emulator opt TYPE=opt ${2:+FLAVOR=$2} ;;
        etc) nice -n 10 ${arch[@]+"${arch[@]}"} make -C erts/etc/common opt TYPE=opt ;;
        esac
    )
}
do_bootstrap() {
    (
        cd "$treedir" && step_env || exit 1
        rm -f bootstrap/bin/erl bootstrap/bin/erlc
        nice -n 10 make bootstrap_setup && [ -x bootstrap/bin/erl ]
    )
}
# The grow1 tree: a copy of the built r13b01 tree (cp -a keeps the times, so make recompiles
# only what the patch touches), with the r13b01 tree's absolute paths (configure wrote them into
# the Makefiles, config.h and the launcher) rewritten in every text file, the files' times kept.
do_copy() {
    local from="$cache/trees/r13b01" f
    rm -rf "$treedir" && cp -a "$from" "$treedir" && rm -rf "$treedir/.eras-build" || return 1
    grep -rlIF "$from" "$treedir" | while read -r f; do
        touch -r "$f" "$treedir/.eras-mtime" &&
            FROM="$from" TO="$treedir" perl -pi -e 's/\Q$ENV{FROM}\E(?=[\/\s"'\'':;=]|$)/$ENV{TO}/g' "$f" &&
            touch -r "$treedir/.eras-mtime" "$f" || exit 1
    done || return 1
    rm -f "$treedir/.eras-mtime"
    ! grep -rlIF "$from/" "$treedir" | grep -q . || { echo "paths of $from left in the copy"; return 1; }
}

# beam_emu.c's flags as the make log shows them (the words between the compiler and -c, less
# -I and the warnings): the run's record, and a guard against the -O0 trap above.
beam_emu_flags() {
    grep -E -- '-c beam/beam_emu\.c( |$)' "$1" | tail -n 1 | awk '{
        out = ""
        for (i = 2; i <= NF && $i != "-c"; i++)
            if ($i !~ /^-(I|W)/) out = out (out == "" ? "" : " ") $i
        print out }'
}
# the C files a make log compiled (for the grow1 tree: erl_db_hash.c alone)
compiled_files() { grep -oE -- '-c [^ ]+\.c( |$)' "$1" | awk '{ print $2 }' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

# ---- run (or, --dry-run, print) one tree's steps
build_tree() {
    local tree=$1 i first=-1 restart=0 t0 log stampdir name
    treedir="$cache/trees/$tree"
    stampdir="$treedir/.eras-build"
    plan_tree "$tree"
    chain_keys
    final_keys[$tree]=${step_keys[${#step_keys[@]} - 1]}
    for i in "${!step_names[@]}"; do
        [ "$(cat "$stampdir/${step_names[$i]// /_}" 2>/dev/null)" = "${step_keys[$i]}" ] && continue
        first=$i
        # a stale stamp, or a patch on a tree that may hold half of it: from a fresh extract
        if [ -e "$stampdir/${step_names[$i]// /_}" ] || [ "${step_names[$i]#patch }" != "${step_names[$i]}" ]; then restart=1; fi
        break
    done
    [ $first -lt 0 ] || [ $restart -eq 0 ] || first=0
    [ $first -ge 0 ] || [ $dry -eq 1 ] || say "$tree: every step done before, reused ($(cat "$stampdir"/*.seconds 2>/dev/null | awk '{ s += $1 } END { print s + 0 }') s then)"
    for i in "${!step_names[@]}"; do
        name=${step_names[$i]}
        if [ $first -lt 0 ] || [ "$i" -lt $first ]; then
            if [ $dry -eq 1 ]; then echo "reuse $tree: $name"; fi
            continue
        fi
        if [ $dry -eq 1 ]; then echo "run   $tree: $name: ${step_descs[$i]}"; continue; fi
        [ "$i" -gt 0 ] || rm -rf "$treedir"
        mkdir -p "$cache/logs/$tree" || failed "cannot create $cache/logs/$tree"
        log="$cache/logs/$tree/$(printf '%02d' "$i")-${name// /-}.log"
        case "$name" in patch\ *) ;; *) say "$tree: $name (log: $log)" ;; esac
        t0=$SECONDS
        # shellcheck disable=SC2086 # the command is a function and its words
        ${step_cmds[$i]} >"$log" 2>&1 </dev/null || failed "$tree: the step '$name' failed (see $log)"
        mkdir -p "$stampdir" || failed "cannot write $stampdir"
        echo "$((SECONDS - t0))" >"$stampdir/${name// /_}.seconds"
        case "$tree:$name" in
        r13b01@grow1:beam | r13b01@grow1:beam.smp)
            compiled_files "$log" >"$stampdir/$name.compiled" ;;
        *:beam | *:beam.smp)
            beam_emu_flags "$log" >"$stampdir/$name.beam_emu_flags"
            grep -qE -- '(^| )-O[1-3s]( |$)' "$stampdir/$name.beam_emu_flags" ||
                failed "$tree: beam_emu.c was compiled without optimisation ('$(cat "$stampdir/$name.beam_emu_flags")'; see $log)" ;;
        esac
        echo "${step_keys[$i]}" >"$stampdir/${name// /_}"
        case "$name" in
        patch\ *) say "$tree: ${name#patch } applied" ;;
        *) say "$tree: $name done in $((SECONDS - t0)) s" ;;
        esac
    done
}

# ---- boot a VM and make it compute: its version, word size, bignums (30!, and the sum that
# big.c gets wrong without -fwrapv), and for R13B01 the buckets of an ETS table after N inserts
# (grow1's change shows there)
checked=""
check_vm() {
    local vm=$1 root=$2 bin out want_w=8 eval
    eval='F = lists:foldl(fun(X, A) -> X * A end, 1, lists:seq(1, 30)) + (16#7fffffffffffffff + 1),
        T = ets:new(t, [set, public]), N = 20000,
        lists:foreach(fun(K) -> ets:insert(T, {K, K}) end, lists:seq(1, N)),
        B = case catch ets:info(T, buckets) of Bk when is_integer(Bk) -> Bk; _ -> 0 end,
        io:format("~s ~w ~w ~w ~w~n", [erlang:system_info(version), erlang:system_info(wordsize), F, ets:info(T, size), B]),
        halt().'
    case "$vm" in
    r10b-*)
        [ "$vm" = r10b-2-32 ] && want_w=4
        bin=$(ls -d "$root"/bin/*-linux-gnu 2>/dev/null | head -n 1)
        # as run.sh starts it: beam itself, the kernel's inet_gethost on PATH
        out=$(cd "$probe" && timeout 120 env BINDIR="$bin" EMU=beam PROGNAME=erl ROOTDIR="$root/bootstrap" PATH="$bin:$PATH" \
            "$bin/beam" -- -root "$root/bootstrap" -progname erl -- -home "${HOME:-/tmp}" \
            -boot "$root/bootstrap/bin/start_clean" -noshell -eval "$eval" 2>&1 </dev/null | tail -n 1) ;;
    r13b01-plain*) out=$(cd "$probe" && timeout 120 "$root/bootstrap/bin/erl" -smp disable -noshell -eval "$eval" 2>&1 </dev/null | tail -n 1) ;;
    r13b01-smp*) out=$(cd "$probe" && timeout 120 "$root/bootstrap/bin/erl" -smp enable +S 2 -noshell -eval "$eval" 2>&1 </dev/null | tail -n 1) ;;
    esac
    local rel v w f n b
    rel=$(release_of_vm "$vm")
    read -r v w f n b <<<"$out"
    [ "$v" = "${vsn_of[$rel]}" ] && [ "$w" = "$want_w" ] && [ "$f" = 265252859812200282008345334775808 ] && [ "$n" = 20000 ] ||
        failed "$vm: the VM in $root does not boot and compute as it should (it printed: $out)"
    # R13B01 splits a bucket at 7 objects per bucket, grow1 at 1
    case "$vm" in
    r13b01-*@grow1) [ "$b" -ge 10000 ] || failed "$vm: $b buckets for 20000 objects: grow1.patch is not in effect" ;;
    r13b01-*) [ "$b" -le 3000 ] || failed "$vm: $b buckets for 20000 objects, not R13B01's one per seven" ;;
    esac
    checked="erts $v, $w-byte words, bignums right"
    [ "$b" -gt 0 ] && checked="$checked, $b buckets for 20000 objects"
    buckets[$vm]=$b
}
declare -A buckets

# ---- the build
if [ $dry -eq 0 ]; then
    mkdir -p "$cache/trees" "$cache/logs" || failed "cannot create $cache"
    cache=$(cd "$cache" && pwd)
    tools32="$cache/tools/m32"
    # one build.sh per cache at a time
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$cache/.lock"
        flock -n 9 || failed "another build.sh is using $cache"
    fi
    if wants r10b-2-32; then make_tools32 >"$cache/logs/tools32.log" 2>&1 || failed "cannot make the 32-bit tools (see $cache/logs/tools32.log)"; fi
else
    [ -d "$cache" ] && cache=$(cd "$cache" && pwd)
fi
started=$SECONDS
for tree in "${trees[@]}"; do build_tree "$tree"; done
[ $dry -eq 0 ] || exit 0

printable=()
for vm in "${all_vms[@]}"; do
    wants "$vm" || continue
    root="$cache/trees/$(tree_of "$vm")"
    if [ "$vm" = r10b-2-32 ] && [ $m32_runs -eq 0 ]; then
        say "r10b-2-32: built in $root, not run (this kernel runs no 32-bit programs): run.sh needs --keep r10b-2-32"
        continue
    fi
    check_vm "$vm" "$root"
    say "$vm: $checked"
    printable+=("$vm=$root")
done

# ---- the provenance: '# key: value' lines for run.sh --provenance
seconds_of() { cat "$cache/trees/$1/.eras-build/${2// /_}.seconds" 2>/dev/null || echo '?'; }
tree_line() {
    local tree=$1 i total=0 parts="" s name
    plan_tree "$tree"
    for i in "${!step_names[@]}"; do
        name=${step_names[$i]}
        s=$(seconds_of "$tree" "$name")
        [ "$s" = '?' ] || total=$((total + s))
        case "$name" in patch\ *) continue ;; esac
        parts="$parts${parts:+, }$name $s"
    done
    echo "$tree $total s ($parts)"
}
patch_list() {
    local p out=""
    for p in $(patches_of "$1"); do out="$out${out:+; }$(basename "$p" .patch) $(sha <"$p")"; done
    echo "$out"
}
has_tree() { case " ${trees[*]} " in *" $1 "*) return 0 ;; esac; return 1; }
prov="$cache/provenance"
{
    srcs=""
    for rel in r10b-2 r13b01; do
        { has_tree "$rel-64" || has_tree "$rel-32" || has_tree "$rel"; } && srcs="$srcs${srcs:+; }${src_text[$rel]}"
    done
    echo "# source: $srcs; built by experiments/beam/eras/build.sh (git $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)) with the patches in experiments/beam/eras/patches/"
    echo "# compiler: $gcc_version; $os"
    echo "# cflags: CFLAGS='$cflags' LDFLAGS=$ldflags in the environment at configure and make (-fwrapv: big.c relies on signed wrap-around; -fcommon, -std=gnu89, -fno-strict-aliasing: the linking, dialect and aliasing the code was written for; non-PIE as executables were then)$(has_tree r10b-2-32 && [ $m32_runs -eq 1 ] && echo "; r10b-2-32: CC=gcc a wrapper running gcc -m32 (the Makefiles' ifeq (\$(CC), gcc) holds), configure and make under setarch i686 (target i686-pc-linux-gnu), a do-nothing libtermcap.a")"
    if has_tree r10b-2-64 || { has_tree r10b-2-32 && [ $m32_runs -eq 1 ]; }; then
        echo "# r10b-2_configure: ./configure ${configure_of[r10b-2]}; make -C erts/emulator opt TYPE=opt; make -C erts/etc/common opt TYPE=opt (inet_gethost); one tree per word size$(has_tree r10b-2-32 && [ $m32_runs -eq 1 ] || echo "; no 32-bit build here")"
        echo "# r10b-2_fixes_sha256: $(patch_list r10b-2)"
    fi
    if has_tree r13b01; then
        echo "# r13b01_configure: ./configure ${configure_of[r13b01]}; make -C erts/emulator opt TYPE=opt FLAVOR=plain and FLAVOR=smp; make -C erts/etc/common opt TYPE=opt; make bootstrap_setup (bootstrap/bin/erl); -smp disable runs beam, -smp enable +S 2 beam.smp"
        echo "# r13b01_fixes_sha256: $(patch_list r13b01)"
    fi
    if has_tree r13b01@grow1; then
        sd="$cache/trees/r13b01@grow1/.eras-build"
        b0=${buckets[r13b01-plain]:-${buckets[r13b01-smp]:-}}
        b1=${buckets[r13b01-plain@grow1]:-${buckets[r13b01-smp@grow1]:-}}
        echo "# r13b01_build_grow1: a copy of the built r13b01 tree with one line of erl_db_hash.c db_put_hash changed, 'nitems > nactive * (CHAIN_LEN+1)' to 'nitems > nactive' (OTP 25's GROW_LIMIT): $(patch_list r13b01@grow1); recompiled for beam: $(cat "$sd/beam.compiled" 2>/dev/null), for beam.smp: $(cat "$sd/beam.smp.compiled" 2>/dev/null), both relinked${b1:+; ets:info(T, buckets) after 20000 inserts: ${b0:-?} (base) and $b1 (grow1)}"
    fi
    for vm in r10b-2-32 r10b-2-64 r13b01-plain r13b01-smp; do
        case " ${printable[*]} " in *" $vm="*) ;; *) continue ;; esac
        case "$vm" in r13b01-smp) f=beam.smp ;; *) f=beam ;; esac
        flags=$(cat "$cache/trees/$(tree_of "$vm")/.eras-build/$f.beam_emu_flags" 2>/dev/null)
        extra=""
        [ "$vm" = r10b-2-32 ] && extra=" (-m32 through the gcc wrapper)"
        echo "# ${vm}_beam_emu_flags: $flags$extra"
    done
    lines=""
    for tree in "${trees[@]}"; do
        [ "$tree" = r10b-2-32 ] && [ $m32_runs -eq 0 ] && continue
        lines="$lines${lines:+, }$(tree_line "$tree")"
    done
    echo "# build_seconds: $lines; one after the other, nice -n 10, make -j$jobs"
} >"$prov" || failed "cannot write $prov"
say "built in $((SECONDS - started)) s (reused steps take none); provenance: $prov (run.sh --provenance)"
[ ${#printable[@]} -eq 0 ] || printf '%s\n' "${printable[@]}"
