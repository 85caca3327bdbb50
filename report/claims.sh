#!/bin/sh
# report/claims.sh CLAIMS_CSV [TEMPLATE]
#
# The check that no comparative word of the report contradicts its numbers (./run report
# --check). Two parts:
#
# 1. Every claim report/generate.sh wrote (its --claims file: one row per {{cmp}} and {{agree}}
#    marker, the word chosen and the numbers behind it) is re-derived here from its numbers,
#    independently of the generator: A is below B when A's interval lies wholly below B's,
#    above when wholly above, else neither (the intervals overlap: "within the noise"); a move
#    agrees with another when both went the same of those three ways. The word must then be one
#    of the report's vocabulary for that relation (below), so a marker whose words are in the
#    wrong slots, or a word the vocabulary does not define, fails.
# 2. With TEMPLATE (report/REPORT.md.in): no sentence that quotes a number ({{value}}) may carry
#    a claim word typed by hand (the vocabulary's words outside a marker): its direction must
#    come from a {{cmp}} or {{agree}} marker. A sentence that names a mechanism, not a
#    measurement, quotes no number and is not checked.
#
# The vocabulary (the longest phrase found in a word decides; lower case):
#   below  faster cheaper lower fewer less smaller shorter fell falls dropped below wins won
#          helps helped down lowered
#   above  slower dearer costlier higher more larger longer rose rises raised above loses lost
#          hurts hurt up grew
#   same   within (its|the|their) noise, even, the same, equal, unchanged, did not move, did not
#          change, as often, as many, as much, no different, not clearly, no clear,
#          indistinguishable, overlap
#   moved  moved, changed (below or above)
#   agree  agrees, agree, as predicted, the same way, matches, confirms
#   other  contradicts, contradicted, disagrees, the other way, opposite, not as predicted
# Exit 0 when every claim holds; 1 with one line per failure otherwise. POSIX sh and awk.
set -eu
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: report/claims.sh CLAIMS_CSV [TEMPLATE]" >&2; exit 2; }
claims=$1 template=${2:-}
[ -r "$claims" ] || { echo "claims: cannot read $claims" >&2; exit 2; }
lib=$(cat "$(dirname "$0")/csv.awk")
vocab='
below|faster cheaper lower fewer less smaller shorter fell falls dropped below wins won helps helped down lowered
above|slower dearer costlier higher more larger longer rose rises raised above loses lost hurts hurt up grew
same|within_its_noise within_the_noise within_their_noise within_noise even the_same equal unchanged did_not_move did_not_change as_often as_many as_much no_different not_clearly no_clear indistinguishable overlap
moved|moved changed
agree|agrees agree as_predicted the_same_way matches confirms
other|contradicts contradicted disagrees the_other_way opposite not_as_predicted
'
status=0
awk -v csv_who=claims -v vocab="$vocab" "$lib"'
    function rel(alo, ahi, blo, bhi) { return ahi < blo ? "low" : alo > bhi ? "high" : "same" }
    # the class of a word: the longest vocabulary phrase it holds as whole words
    function class(w,    best, bl, k, ph, re) {
        w = " " tolower(w) " "; gsub(/[^a-z0-9 ]/, " ", w); best = ""; bl = 0
        for (k in cls) { ph = k; gsub(/_/, " ", ph)
            if (index(w, " " ph " ") && length(ph) > bl) { best = cls[k]; bl = length(ph) } }
        return best
    }
    BEGIN { n = split(vocab, lines, "\n")
            for (i = 1; i <= n; i++) { if (split(lines[i], p, "|") != 2) continue
                m = split(p[2], ws, " "); for (j = 1; j <= m; j++) cls[ws[j]] = p[1] } }
    !csv_row() { next }
    {
        k = csv_get("marker"); w = csv_get("word"); r = csv_get("relation"); split(csv_get("numbers"), x, " ")
        where = csv_get("line") ": {{" csv_get("body") "}}"
        c = class(w)
        if (c == "") { printf "claims: %s: \"%s\" is not a word of the vocabulary (report/claims.sh)\n", where, w; bad++; next }
        if (k == "cmp") {
            now = rel(x[2], x[3], x[5], x[6])
            if (now != r) { printf "claims: %s: the generator says %s, the numbers %s\n", where, r, now; bad++; next }
            ok = (now == "low" && (c == "below" || c == "moved")) || (now == "high" && (c == "above" || c == "moved")) || (now == "same" && c == "same")
            if (!ok) { printf "claims: %s: \"%s\" (%s) where %s %s %s (interval %s-%s against %s-%s)\n", where, w, c, x[1],
                            now == "low" ? "is below" : now == "high" ? "is above" : "cannot be told from", x[4], x[2], x[3], x[5], x[6]; bad++ }
        } else if (k == "agree") {
            # numbers: A0, A1, B0, B1, each value lo hi; A1 against A0, B1 against B0
            a = rel(x[5], x[6], x[2], x[3]) "/" rel(x[11], x[12], x[8], x[9])
            split(a, aa, "/")
            if (a != r) { printf "claims: %s: the generator says %s, the numbers %s\n", where, r, a; bad++; next }
            ok = (aa[1] == aa[2]) ? (c == "agree") : (c == "other")
            if (!ok) { printf "claims: %s: \"%s\" (%s) where the moves are %s\n", where, w, c, a; bad++ }
        } else { printf "claims: %s: unknown marker %s\n", where, k; bad++ }
        checked++
    }
    END { if (bad) exit 1; printf "claims: %d claims, each the word its numbers give\n", checked + 0 > "/dev/stderr" }' "$claims" || status=1

[ -z "$template" ] && exit $status
[ -r "$template" ] || { echo "claims: cannot read $template" >&2; exit 2; }
# The typed claim words: the vocabulary's, less the ones prose uses for other things (less,
# more, up, down, even, equal, below, above, lower, higher...: a sentence that quotes numbers
# with them is still read by a reviewer; the ones here are the directions the issue found typed).
typed='faster slower cheaper dearer costlier wins loses lost helps hurts helped hurt moved rose fell agrees contradicts contradicted as_predicted within_its_noise within_the_noise within_noise did_not_move'
awk -v typed="$typed" -v template="$template" '
    function flush(    s, n, i, j, k, ph, plain, nw) {
        if (para == "") return
        n = split(para, sents, /[.;:!?]  *|[.;:!?]$/)
        for (i = 1; i <= n; i++) {
            s = sents[i]
            if (s !~ /\{\{value / && s !~ /[0-9]/) continue
            # markers, code and quoted words (a definition names its words in quotes) aside
            plain = s; gsub(/\{\{[^}]*\}\}/, " ", plain); gsub(/`[^`]*`/, " ", plain); gsub(/"[^"]*"/, " ", plain)
            plain = " " tolower(plain) " "; gsub(/[^a-z0-9 ]/, " ", plain)
            for (k = 1; k <= nt; k++) { ph = tw[k]; gsub(/_/, " ", ph)
                if (index(plain, " " ph " ")) { printf "claims: %s:%d: \"%s\" typed in a sentence that quotes numbers (make it a {{cmp}} or {{agree}}): %.160s\n", template, start, ph, s; bad++ } }
        }
        para = ""
    }
    BEGIN { nt = split(typed, tw, " ") }
    /^[ \t]*$/ || /^#/ || /^\{\{(ifexists|else|endif)/ || /^\|/ || /^```/ { flush(); next }
    { if (para == "") start = FNR; para = para " " $0 }
    END { flush(); exit bad ? 1 : 0 }' "$template" || status=1
exit $status
