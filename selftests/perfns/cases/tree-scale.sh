# SPDX-License-Identifier: GPL-2.0
# selftests/perfns/cases/tree-scale.sh - perfns tree over many namespaces.
# Sourced by selftests/perfns/perfns-suite, in its order, with its
# variables and helpers (perfns-lib.sh); not a program of its own.
# shellcheck shell=bash disable=SC2154

# 40 processes, each at the bottom of a chain of 25 user namespaces of its
# own: 1,000 namespaces here; selftests/perfns/perfns-suite-scale does 2,000 (and what
# tree leaves in the dcache) and 10,000, a stage of its own for its time.
farm_tree 40 25 text
tcase "tree --json" 0 '*' '' "$P" tree --json
printf '%s\n' "$OUT" >"$T/tree-all"
tcase "tree --json with 12 descriptors (one namespace per child)" 0 '*' '' \
	bash -c "ulimit -n 12 && exec $P tree --json"
ok_if "... lists the same namespaces with the same levels" json_ok "
ids = lambda d: sorted((n['id'], n['level'], n['parent']) for n in walk(d['namespaces']))
other = json.load(open('$T/tree-all'))
assert ids(doc) == ids(other), (len(ids(doc)), len(ids(other)))
"
tcase "tree fails loudly when descriptors run out (ulimit -n 5)" 1 '' \
	'^perfns: cannot list the user namespaces: pidfd_open \(pid [0-9]+\): Too many open files; refusing to print an incomplete tree$' \
	bash -c "ulimit -n 5 && exec $P tree"
spawn "${as_user[@]}" unshare --user --map-root-user sleep 1150
tcase "tree fails loudly when it cannot fork (ordinary user, ulimit -u 1)" 1 \
	"level: unknown \\(Resource temporarily unavailable\\)" \
	'could not be read' \
	"${as_user[@]}" bash -c "ulimit -u 1 && exec $P tree"
