# floors.sh (sourced): the library's floors, bottom up, as CMakeLists.txt lists them
# (TC_LAYERS): the one list that layers.sh, symbols.sh, install.sh and lint.sh read.
#   tc_floors SOURCE_DIR   prints them on one line; fails when CMakeLists.txt has none
tc_floors() {
    local list
    list=$(sed -n 's/^set(TC_LAYERS \([a-z ]*\))$/\1/p' "$1/CMakeLists.txt")
    [ -n "$list" ] || { echo "floors.sh: no set(TC_LAYERS ...) in $1/CMakeLists.txt" >&2; return 1; }
    echo "$list"
}
