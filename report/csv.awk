# report/csv.awk: the one way the pipeline reads a CSV. Its text goes before the program of
# every awk that reads one (report/derive.sh, report/generate.sh, report/csv.sh,
# experiments/beam/fidelity.sh). POSIX awk (mawk on Debian).
#
# A CSV: '#' lines (metadata, '# key: text', anywhere), one header row (the first other line
# that is not blank), then rows with as many fields as the header. Fields are separated by
# commas; a field may be "double-quoted" ("" for a quote inside). A column is found by its
# name in the header, never by its position.
#
# Row by row, over the files named on the command line:
#     !csv_row() { next }            the first rule: '#' lines (their metadata kept), blank
#                                    lines and the header (its names kept) are not rows
#     { x = csv_get("median_us") }   a row's field by column name; a name the file's header
#                                    does not have is an error naming the file and the column
#   csv_file: the number of the file the row is from (1, 2, ...); csv_has(NAME): whether the
#   current file has that column; csv_meta(KEY): the current file's first '# KEY:' text (an
#   error if it has none); csv_meta_has(FILE, KEY); csv_files(): the input files, for messages.
#   At the end every file named on the command line (or the standard input, once csv_row has
#   read it) must have had a header and a row: an empty CSV is an error. Set csv_inputs = 0
#   (-v) when the input files are not CSVs, and before an exit that stops reading early.
# A whole file at once (report/generate.sh): csv_load(NAME, PATH) reads PATH under NAME (an
#   error if it cannot be read, or has no header or no row); then csv_nrows[NAME] rows, the
#   field csv_cell[NAME, ROW, csv_col_of(NAME, COLUMN)], and csv_meta_of(NAME, KEY).
#
# Every error goes through csv_die(MESSAGE): "WHO: WHERE: MESSAGE" on stderr, exit status 1
# without running the program's own END actions (WHO: csv_who, default "csv"; WHERE:
# csv_where, left out when empty). A program's own errors can use it too.

function csv_die(msg) {
    printf "%s: %s%s\n", (csv_who != "" ? csv_who : "csv"), (csv_where != "" ? csv_where ": " : ""), msg > "/dev/stderr"
    _csv_status = 1
    exit 1
}

# Splits one CSV line into f[1..n]; returns n.
function csv_split(line, f,    n, i, c, field, quoted) {
    if (index(line, "\"") == 0) return split(line, f, ",")
    n = 0; field = ""; quoted = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (quoted) {
            if (c == "\"" && substr(line, i + 1, 1) == "\"") { field = field c; i++ }
            else if (c == "\"") quoted = 0
            else field = field c
        } else if (c == "\"") quoted = 1
        else if (c == ",") { f[++n] = field; field = "" }
        else field = field c
    }
    f[++n] = field
    return n
}

# The header row of NAME: its column names and their count.
function csv_header(name, line,    n, i, h, seen) {
    n = csv_split(line, h)
    for (i = 1; i <= n; i++) {
        if (h[i] in seen) csv_die(name " has the column \"" h[i] "\" twice")
        seen[h[i]] = 1
        _csv_col[name, h[i]] = i
    }
    csv_ncols[name] = n
    _csv_names[name] = line
}

# The position of COLUMN in NAME's header; a column it does not have is an error.
function csv_col_of(name, column) {
    if ((name, column) in _csv_col) return _csv_col[name, column]
    if (!(name in csv_ncols)) csv_die(name " has no header row")
    csv_die(name " has no column \"" column "\" (its columns: " _csv_names[name] ")")
}

# A '#' line of NAME: a '# key: text' line is kept as NAME's metadata (the first of a key).
function _csv_metaline(name, line,    key) {
    if (!match(line, /^# *[A-Za-z0-9_-]+: */)) return
    key = line; sub(/^# */, "", key); sub(/:.*/, "", key)
    if (!((name, key) in _csv_meta)) _csv_meta[name, key] = substr(line, RLENGTH + 1)
}

function csv_meta_has(name, key) { return (name, key) in _csv_meta }

# Whether NAME's header has COLUMN.
function csv_col_has(name, column) { return (name, column) in _csv_col }

# NAME's column names, in order, into arr[1..n]; returns n.
function csv_names(name, arr) {
    if (!(name in csv_ncols)) csv_die(name " has no header row")
    return csv_split(_csv_names[name], arr)
}

function csv_meta_of(name, key) {
    if (!((name, key) in _csv_meta)) csv_die(name " has no \"# " key ":\" line")
    return _csv_meta[name, key]
}

# Row by row: 1 when the current record is a row (its fields in csv_f[1..csv_nf]), else 0.
function csv_row(    line) {
    if (FNR == 1 || FILENAME != _csv_filename) {
        csv_file++
        _csv_filename = FILENAME
        _csv_name = FILENAME == "" ? "-" : FILENAME
        _csv_header_seen = 0
    }
    _csv_streamed = 1
    line = $0
    sub(/\r$/, "", line)
    if (line ~ /^#/) { _csv_metaline(_csv_name, line); return 0 }
    if (line ~ /^[ \t]*$/) return 0
    if (!_csv_header_seen) { csv_header(_csv_name, line); _csv_header_seen = 1; return 0 }
    csv_nf = csv_split(line, csv_f)
    if (csv_nf != csv_ncols[_csv_name])
        csv_die(_csv_name ":" FNR ": " csv_nf " fields where the header has " csv_ncols[_csv_name])
    csv_rows[_csv_name]++
    return 1
}

# The files named on the command line, for messages: "A" or "A and B" or "A, B and C".
function csv_files(    i, n, out, f) {
    n = 0
    for (i = 1; i < ARGC; i++)
        if (ARGV[i] != "" && ARGV[i] !~ /^[A-Za-z_][A-Za-z0-9_]*=/) f[++n] = ARGV[i]
    if (!n) return "the standard input"
    out = f[1]
    for (i = 2; i <= n; i++) out = out (i == n ? " and " : ", ") f[i]
    return out
}

function csv_get(column) { return csv_f[csv_col_of(_csv_name, column)] }
function csv_has(column) { return (_csv_name, column) in _csv_col }
function csv_meta(key) { return csv_meta_of(_csv_name, key) }

# A whole file at once, under NAME (the name errors use).
function csv_load(name, path,    line, rc, n, i, r, f, header_seen) {
    if (name in _csv_loaded) return
    rc = (getline line < path)
    if (rc < 0) csv_die("cannot read " path)
    header_seen = 0
    while (rc > 0) {
        sub(/\r$/, "", line)
        if (line ~ /^#/) _csv_metaline(name, line)
        else if (line !~ /^[ \t]*$/) {
            if (!header_seen) { csv_header(name, line); header_seen = 1 }
            else {
                n = csv_split(line, f)
                if (n != csv_ncols[name]) csv_die(path ": a row of " n " fields where the header has " csv_ncols[name])
                r = ++csv_nrows[name]
                for (i = 1; i <= n; i++) csv_cell[name, r, i] = f[i]
            }
        }
        rc = (getline line < path)
    }
    close(path)
    if (!header_seen) csv_die(path " has no header row")
    if (!csv_nrows[name]) csv_die(path " has no rows")
    _csv_loaded[name] = 1
}

function _csv_need(name,    shown) {
    shown = name == "-" ? "the standard input" : name
    if (!(name in csv_ncols)) csv_die(shown " is empty: no header row")
    if (!csv_rows[name]) csv_die(shown " has a header but no rows")
}

# First of the END actions: after an error, nothing else runs; otherwise every input CSV
# must have had a row.
END {
    if (_csv_status) exit _csv_status
    if (csv_inputs != "0") {
        _csv_nargs = 0
        for (_csv_i = 1; _csv_i < ARGC; _csv_i++) {
            if (ARGV[_csv_i] == "" || ARGV[_csv_i] ~ /^[A-Za-z_][A-Za-z0-9_]*=/) continue
            _csv_nargs++
            _csv_need(ARGV[_csv_i])
        }
        if (!_csv_nargs && _csv_streamed) _csv_need(_csv_name)
    }
}
