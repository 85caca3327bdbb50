#!/bin/sh
# report/generate.sh [--claims FILE] TEMPLATE RESULTS_DIR OUTPUT
#
# Expands the markers of a Markdown template with numbers read from the pipeline's CSVs, so no
# number in the report is typed by hand. FILE is a path relative to RESULTS_DIR; CSVs start
# with '#' metadata lines, then a header row, then rows (fields may be "quoted").
#
#   {{value FILE COLUMN [KEY=VAL ...] [%FMT]}}   the one row matching every KEY=VAL (VAL may
#                                  list alternatives as a|b); FMT is a printf format or '%,'
#                                  (rounded, thousands separated). No row or several: an error.
#   {{table FILE COL[:Title] ... [KEY=VAL ...]}}  a Markdown table of the matching rows (on a
#                                  line of its own), a blank line before and after it; '_' in a
#                                  Title is a space, a '|' in a cell is written \|
#   {{meta FILE KEY}}              the text of FILE's (first) '# KEY: ...' metadata line
#   {{ifexists FILE}} ... [{{else}} ...] {{endif}}   lines kept only if FILE exists (own lines)
#   {{cmp A B LOW HIGH SAME}}      a comparative word computed from two numbers: LOW when A is
#                                  below B, HIGH when above, SAME when they cannot be told apart
#                                  ('_' in a word is a space). A and B are value specs:
#                                  FILE:COLUMN[:KEY=VAL,KEY=VAL...] (one row, as value) or a
#                                  number, with an interval: COLUMN_lo..COLUMN_hi when FILE has
#                                  both columns (the 95 % interval the pipeline computes), or
#                                  ~T (absolute) or ~T% (relative) after the spec, else the
#                                  value alone. A is below B when A's interval lies wholly
#                                  below B's, above when wholly above; intervals that overlap
#                                  are SAME (within the noise). So "faster" is a ratio whose
#                                  interval excludes 1, and "within its noise" an overlap.
#   {{agree A0 A1 B0 B1 AGREE DISAGREE}}  AGREE when B moved from B0 to B1 the way A moved from
#                                  A0 to A1 (each move a cmp: down, up or same), else DISAGREE
#
# With --claims FILE every cmp and agree marker also writes a row to FILE (CSV: the template
# line, the marker, the word chosen, the relation and the numbers behind it), which
# report/claims.sh checks against the report's vocabulary (./run report --check).
#
# The CSVs are read by report/csv.awk (columns by header name; a CSV that cannot be read, or
# has no header or no rows, is an error). Any marker that cannot be expanded is an error (exit
# 1, with the template line); OUTPUT is then left untouched. POSIX sh and awk only (mawk on
# Debian).
set -eu
claims=""
if [ "${1:-}" = --claims ]; then claims=${2:?--claims needs a file}; shift 2; fi
[ $# -eq 3 ] || { echo "usage: report/generate.sh [--claims FILE] TEMPLATE RESULTS_DIR OUTPUT" >&2; exit 2; }
template=$1 results=$2 output=$3
[ -r "$template" ] || { echo "generate: cannot read $template" >&2; exit 2; }
tmp="$output.tmp.$$"
trap 'rm -f "$tmp" "$tmp.claims"' EXIT INT TERM
csv=$(cat "$(dirname "$0")/csv.awk")

# The template is the input (csv_inputs=0: not a CSV); csv_where names its line in errors.
awk -v results="$results" -v template="$template" -v claims="${claims:+$tmp.claims}" -v csv_who=generate -v csv_inputs=0 "$csv"'
function die(msg) { csv_die(msg) }

function load(file) { csv_load(file, results "/" file) }
function column(file, name) { return csv_col_of(file, name) }

# Does row r of file match every KEY=VAL filter in flt[1..nf]?
function matches(file, r, flt, nf,    i, k, v, alts, na, j, ok) {
    for (i = 1; i <= nf; i++) {
        k = flt[i]; sub(/=.*/, "", k)
        v = flt[i]; sub(/^[^=]*=/, "", v)
        na = split(v, alts, "|")
        ok = 0
        for (j = 1; j <= na; j++) if (csv_cell[file, r, column(file, k)] "" == alts[j] "") ok = 1
        if (!ok) return 0
    }
    return 1
}

function thousands(x,    s, neg, out) {
    s = sprintf("%.0f", x)
    neg = (substr(s, 1, 1) == "-"); if (neg) s = substr(s, 2)
    out = ""
    while (length(s) > 3) { out = "," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) }
    return (neg ? "-" : "") s out
}

function format(v, fmt) {
    if (fmt == "") return v
    if (v !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) return v
    if (fmt == "%,") return thousands(v + 0)
    return sprintf(fmt, v + 0)
}

# The one row of FILE matching every KEY=VAL of flt[1..nf]; BODY names the marker in errors.
function onerow(file, flt, nf, body,    r, found, hit) {
    found = 0
    for (r = 1; r <= csv_nrows[file]; r++)
        if (matches(file, r, flt, nf)) { found++; hit = r }
    if (found != 1) die(found " rows of " file " match {{" body "}} (need exactly 1)")
    return hit
}

function isnum(x) { return x ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ }

# A value spec, FILE:COLUMN[:KEY=VAL,...][~TOL] or NUMBER[~TOL]: sets sv, slo and shi (its value
# and interval) and stext (how the claims file shows it).
function spec(s, body,    tol, p, np, file, col, flt, nf, r, d, lc, hc) {
    tol = ""; stext = s
    if (match(s, /~[0-9.]+%?$/)) { tol = substr(s, RSTART + 1); s = substr(s, 1, RSTART - 1) }
    if (isnum(s)) { sv = slo = shi = s + 0 }
    else {
        np = split(s, p, ":")
        if (np < 2 || np > 3) die("bad value spec \"" s "\" in {{" body "}} (FILE:COLUMN[:KEY=VAL,...] or a number)")
        file = p[1]; col = p[2]
        load(file)
        nf = np == 3 ? split(p[3], flt, ",") : 0
        r = onerow(file, flt, nf, body)
        sv = csv_cell[file, r, column(file, col)]
        if (!isnum(sv)) die(file " " col " is \"" sv "\", not a number, in {{" body "}}")
        sv += 0; slo = shi = sv
        if (csv_col_has(file, col "_lo") && csv_col_has(file, col "_hi")) {
            slo = csv_cell[file, r, column(file, col "_lo")]; shi = csv_cell[file, r, column(file, col "_hi")]
            if (!isnum(slo) || !isnum(shi)) die(file " " col "_lo/_hi are not numbers in {{" body "}}")
            slo += 0; shi += 0
        }
    }
    if (tol != "") { d = tol ~ /%$/ ? sv * (tol + 0) / 100 : tol + 0; if (d < 0) d = -d; slo = sv - d; shi = sv + d }
}

# How A (av in alo..ahi) stands to B: "low", "high" or "same" (the intervals overlap).
function relation(alo, ahi, blo, bhi) { return ahi < blo ? "low" : alo > bhi ? "high" : "same" }

function word(w) { gsub(/_/, " ", w); return w }

function claim(kind, w, rel, nums, body) {
    if (claims == "") return
    gsub(/"/, "\"\"", body)
    printf "%s,%s,\"%s\",%s,%s,\"%s\"\n", csv_where, kind, w, rel, nums, body > claims
}

# Expands one marker body (the words between the braces).
function expand(body,    w, n, i, file, flt, nf, fmt, r, hit, found, out, cols, nc, c, name, title, cell, a, b, rel, rel2, nums) {
    n = split(body, w, " ")
    file = w[2]
    if (w[1] == "meta") {
        if (n != 3) die("meta takes FILE KEY")
        load(file)
        return csv_meta_of(file, w[3])
    }
    if (w[1] == "value") {
        if (n < 3) die("value takes FILE COLUMN [KEY=VAL ...] [%FMT]")
        load(file)
        nf = 0; fmt = ""
        for (i = 4; i <= n; i++) {
            if (w[i] ~ /^%/) fmt = w[i]
            else if (w[i] ~ /=/) flt[++nf] = w[i]
            else die("bad filter \"" w[i] "\"")
        }
        c = column(file, w[3])
        return format(csv_cell[file, onerow(file, flt, nf, body), c], fmt)
    }
    if (w[1] == "cmp") {
        if (n != 6) die("cmp takes A B LOW HIGH SAME")
        spec(w[2], body); a = sv " " slo " " shi
        spec(w[3], body)
        split(a, p3, " ")
        rel = relation(p3[2], p3[3], slo, shi)
        out = word(rel == "low" ? w[4] : rel == "high" ? w[5] : w[6])
        claim("cmp", out, rel, p3[1] " " p3[2] " " p3[3] " " sv " " slo " " shi, body)
        return out
    }
    if (w[1] == "agree") {
        if (n != 7) die("agree takes A0 A1 B0 B1 AGREE DISAGREE")
        spec(w[2], body); a = sv " " slo " " shi
        spec(w[3], body); split(a, p3, " ")
        rel = relation(slo, shi, p3[2], p3[3]); nums = a " " sv " " slo " " shi
        spec(w[4], body); a = sv " " slo " " shi
        spec(w[5], body); split(a, p3, " ")
        rel2 = relation(slo, shi, p3[2], p3[3]); nums = nums " " a " " sv " " slo " " shi
        out = word(rel == rel2 ? w[6] : w[7])
        claim("agree", out, rel "/" rel2, nums, body)
        return out
    }
    if (w[1] == "table") {
        load(file)
        nf = 0; nc = 0
        for (i = 3; i <= n; i++) {
            if (w[i] ~ /=/) flt[++nf] = w[i]
            else cols[++nc] = w[i]
        }
        if (nc == 0) die("table needs columns")
        out = "|"
        for (i = 1; i <= nc; i++) {
            name = cols[i]; title = name
            if (name ~ /:/) { sub(/:.*/, "", name); sub(/^[^:]*:/, "", title); gsub(/_/, " ", title) }
            cols[i] = name
            column(file, name)
            out = out " " title " |"
        }
        out = out "\n|"
        for (i = 1; i <= nc; i++) out = out "---|"
        found = 0
        for (r = 1; r <= csv_nrows[file]; r++) {
            if (!matches(file, r, flt, nf)) continue
            found++
            out = out "\n|"
            for (i = 1; i <= nc; i++) {
                cell = csv_cell[file, r, column(file, cols[i])]
                gsub(/\|/, "\\|", cell) # a bar inside a cell would end the cell
                out = out " " cell " |"
            }
        }
        if (!found) die("no rows of " file " match {{" body "}}")
        # blank lines around it: a table must not swallow the paragraph after it, nor be read as
        # the last line of the one before
        return "\n" out "\n"
    }
    die("unknown marker {{" body "}}")
}

function exists(file,    line, rc) {
    rc = (getline line < (results "/" file))
    close(results "/" file)
    return rc >= 0
}

{
    csv_where = template ":" FNR
    line = $0
    if (line ~ /^[ \t]*\{\{ifexists [^}]*\}\}[ \t]*$/) {
        sub(/^[ \t]*\{\{ifexists +/, "", line); sub(/ *\}\}[ \t]*$/, "", line)
        depth++; keep[depth] = exists(line); inelse[depth] = 0
        next
    }
    if (line ~ /^[ \t]*\{\{else\}\}[ \t]*$/) {
        if (!depth) die("{{else}} without {{ifexists}}")
        if (inelse[depth]) die("a second {{else}} in one {{ifexists}}")
        keep[depth] = !keep[depth]; inelse[depth] = 1
        next
    }
    if (line ~ /^[ \t]*\{\{endif\}\}[ \t]*$/) {
        if (!depth) die("{{endif}} without {{ifexists}}")
        depth--
        next
    }
    for (d = 1; d <= depth; d++) if (!keep[d]) next
    out = ""
    while (match(line, /\{\{[^}]*\}\}/)) {
        start = RSTART; len = RLENGTH   # expand() may call match() again
        out = out substr(line, 1, start - 1) expand(substr(line, start + 2, len - 4))
        line = substr(line, start + len)
    }
    print out line
}
END {
    csv_where = template
    if (depth) die("{{ifexists}} without {{endif}}")
}
' "$template" >"$tmp"
mv "$tmp" "$output"
if [ -n "$claims" ]; then
    { echo "line,marker,word,relation,numbers,body"; cat "$tmp.claims" 2>/dev/null || true; } >"$claims"
fi
rm -f "$tmp.claims"
trap - EXIT INT TERM
