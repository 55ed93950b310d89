#!/bin/sh
# gen-man.sh KTUNE MAIN_C - write ktune(1), in man(7) markup, on stdout,
# from the program's own help: `KTUNE --help` for the description and
# `KTUNE CMD --help` for each command of the table in MAIN_C (src/cli/main.c),
# so the manual says what the program says and cannot drift from it.  The
# help texts are laid out for a terminal already, so they are kept as they
# are (no-fill), escaped for roff.  `make` runs it into build/ktune.1;
# tests/pkg/man.sh renders the result with warnings as errors.
set -eu
ktune=$1 main_c=$2

# Text as roff: backslashes written as \e, every '-' a minus sign (options
# must copy-paste as ASCII), a leading '.' or quote made literal.
roff() {
    sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}
# A help text without its last blank lines, in a no-fill block.
block() {
    printf '.nf\n'
    awk 'NF { for (; blank > 0; blank--) print ""; print; next } { blank++ }' | roff
    printf '.fi\n'
}

version=$("$ktune" --version | sed -n '1s/^ktune //p')
# The table's entries: {"name", cli_name, "summary"},
commands=$(sed -n 's/^ *{"\([a-z]*\)", cli_[a-z_]*, "\(.*\)"},$/\1\t\2/p' "$main_c")
[ -n "$commands" ] || { echo "gen-man.sh: no command table in $main_c" >&2; exit 1; }
help=$("$ktune" --help)

printf '.TH KTUNE 1 "" "ktune %s" "User Commands"\n' "$version"
printf '.SH NAME\nktune \\- a learned auto-tuner for compute kernels\n'
printf '.SH SYNOPSIS\n'
printf '%s\n' "$help" | sed -n 's/^usage: //p' | roff | sed 's/^/.B /'
printf '.br\n.B ktune \\-\\-version\n'
printf '.SH DESCRIPTION\n'
printf '%s\n' "$help" | sed '1,/^$/d' | block
printf '.SH COMMANDS\n'
printf '%s\n' "$commands" | while IFS='	' read -r name summary; do
    printf '.SS "ktune %s"\n' "$name"
    printf '%s\n' "$summary" | roff
    printf '.PP\n'
    "$ktune" "$name" --help | block
done
printf '.SH ENVIRONMENT\n.TP\n.B KTUNE_WORKER\n'
printf 'the measurement worker program (default: ktune\\-worker beside the\n'
printf 'program, or in ../libexec/ktune/ as installed, else on PATH)\n'
