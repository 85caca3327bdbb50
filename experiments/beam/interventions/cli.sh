# The argument checks of the interventions' scripts (priced.sh, perfsplit.sh), sourced after
# they set `prog`: a bad argument is one line on stderr and exit 2, before anything is built.
usage() { echo "$prog: $1 (see --help)" >&2; exit 2; }
# num OPTION VALUE: VALUE a positive whole number, else usage.
num() { case "$2" in '' | *[!0-9]* | 0) usage "$1: '$2' is not a positive number" ;; esac; }
