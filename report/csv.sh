#!/bin/sh
# report/csv.sh COMMAND FILE ...: report/csv.awk from the shell and from gnuplot's system().
#
#   csv.sh column FILE NAME       the column NAME of every row of FILE, one a line
#   csv.sh value FILE NAME        the column NAME of FILE's one row (more rows: an error)
#   csv.sh meta FILE KEY          the text of FILE's (first) '# KEY: ...' line
#   csv.sh check FILE [NAME ...]  nothing: FILE has a header, a row, and every column NAME
#   csv.sh gnuplot P FILE NAME ...  gnuplot assignments P_NAME = 'N', N the position of each
#                                 column NAME in FILE's header (plots/style.gp: csvcols)
#
# FILE missing or empty (no header, or no row), a column or a key it does not have: a message
# that names FILE and what is missing on stderr, exit 1. POSIX sh and awk only.
set -eu
[ $# -ge 2 ] || { echo "usage: report/csv.sh column|value|meta|check FILE [NAME ...] | gnuplot PREFIX FILE NAME ..." >&2; exit 2; }
lib=$(cat "$(dirname "$0")/csv.awk")
cmd=$1
shift
if [ "$cmd" = gnuplot ]; then
    [ $# -ge 3 ] || { echo "usage: report/csv.sh gnuplot PREFIX FILE NAME ..." >&2; exit 2; }
    prefix=$1
    shift
fi
file=$1
shift
[ -r "$file" ] && [ -f "$file" ] || { echo "csv: cannot read $file" >&2; exit 1; }
case $cmd in
column | value)
    [ $# -eq 1 ] || { echo "usage: report/csv.sh $cmd FILE NAME" >&2; exit 2; }
    exec awk -v csv_who=csv -v name="$1" -v one="$([ "$cmd" = value ] && echo 1 || echo 0)" "$lib"'
        !csv_row() { next }
        { if (one && csv_rows[FILENAME] > 1) csv_die(FILENAME " has more than one row: no one value of \"" name "\"")
          print csv_get(name) }' "$file"
    ;;
meta)
    [ $# -eq 1 ] || { echo "usage: report/csv.sh meta FILE KEY" >&2; exit 2; }
    exec awk -v csv_who=csv -v key="$1" "$lib"'
        !csv_row() { next }
        END { print csv_meta_of(FILENAME, key) }' "$file"
    ;;
check)
    exec awk -v csv_who=csv -v names="$*" "$lib"'
        !csv_row() { next }
        END { n = split(names, a, " "); for (i = 1; i <= n; i++) csv_col_of(FILENAME, a[i]) }' "$file"
    ;;
gnuplot)
    exec awk -v csv_who=csv -v prefix="$prefix" -v names="$*" "$lib"'
        !csv_row() { next }
        END { n = split(names, a, " ")
              for (i = 1; i <= n; i++) out = out sprintf("%s%s_%s = \047%d\047", (i > 1 ? "; " : ""), prefix, a[i], csv_col_of(FILENAME, a[i]))
              print out }' "$file"
    ;;
*) echo "csv: unknown command '$cmd' (column, value, meta, check, gnuplot)" >&2; exit 2 ;;
esac
