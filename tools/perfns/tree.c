// SPDX-License-Identifier: GPL-2.0
/*
 * perfns tree [--json] - every user namespace with its level in force, and
 * the host's level as written and floor.
 *
 * The namespaces are found from the processes (tree_collect.c) and sorted
 * (tree_sort.c); their levels are read top-down by children that enter
 * them (tree_read.c, tree_reach.c), and the tree printed as text or JSON
 * (tree_output.c). However many namespaces there are, perfns holds a few
 * dozen descriptors at any time. Resource errors end the command with a
 * message and exit status 1; they never drop a namespace silently.
 */
#include <getopt.h>
#include <stdlib.h>

#include "tree.h"

static const char tree_usage[] =
	"Usage: perfns tree [--json] [--timeout SECONDS]\n"
	"\n"
	"Show every user namespace on the system as a tree: its id (the\n"
	"inode of /proc/PID/ns/user), the uid owning it, its depth, the\n"
	"perf_event_paranoid level in force in it as the kernel says it\n"
	"(NS_PERF_PARANOID_GET), its own level (own: none until something\n"
	"writes its user.perf_event_paranoid: it follows its parent, up and\n"
	"down), the level the host granted it (grant:, on a granted\n"
	"namespace, whose level is marked (granted)) and a few of its\n"
	"processes. When run from the initial namespace, its row also shows\n"
	"the host's level as written (host:, kernel.perf_event_paranoid,\n"
	"where the kernel counts it for less: above 2 on the series' mainline\n"
	"form) and the host's floor (kernel.perf_event_paranoid_userns as it\n"
	"was written, none for -1; where the kernel has it).\n"
	"Namespaces that have no process are found through the parents of\n"
	"those that have. Reading a level takes CAP_SYS_ADMIN over the\n"
	"namespace; where that is missing the row says so. Names that\n"
	"processes give themselves are printed with every byte that is not\n"
	"printable ASCII (and the backslash) as \\xHH.\n"
	"\n"
	"Options:\n"
	"  -j, --json           print JSON instead (see perfns(1) for its fields)\n"
	"  -t, --timeout SECS   give up on a namespace after SECS (default 10)\n"
	"  -h, --help           show this help\n"
	"\n"
	"Exit status: 0 ok, 1 failed (a level could not be read for a reason\n"
	"other than permissions, or resources ran out), 2 usage error.\n";

int cmd_tree(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct forest f = { 0 };
	int c, per_ns, ret, has_floor;
	size_t i, nroots = 0;
	bool json = false;
	long *roots;

	optind = 1;
	while ((c = subcmd_getopt("tree", tree_usage, ":jt:h", opts,
				  argc, argv, &ret)) > 0) {
		ret = 0;
		switch (c) {
		case 'j':
			json = true;
			break;
		case 't':
			ret = parse_timeout_arg("tree", optarg);
			break;
		default:
			ret = usage_error("tree", "unknown option");
		}
		if (ret)
			return ret;
	}
	if (!c)
		return ret;
	if (optind < argc)
		return usage_error("tree", "unexpected argument '%s'",
				   argv[optind]);

	f.self = userns_self();
	if (!f.self)
		return EXIT_FAIL;
	set_chain_limits(&f);
	if (collect_processes(&f))
		return EXIT_FAIL;
	link_parents(&f);

	roots = xrealloc(NULL, (f.n + 1) * sizeof(long));
	for (i = 0; i < f.n; i++)
		if (f.nodes[i].parent < 0)
			roots[nroots++] = i;
	sort_tree(&f, roots, nroots);
	for (i = 0; i < nroots; i++)
		set_depths(&f, roots[i], 0);
	read_levels(&f, roots, nroots);
	per_ns = kernel_per_ns(NULL);
	has_floor = kernel_has_floor();

	if (json)
		ret = print_tree_json(&f, roots, nroots, per_ns, has_floor);
	else
		ret = print_tree_text(&f, roots, nroots, per_ns, has_floor);
	if (f.timeouts)
		msg("%u user namespace%s did not answer within %d s (a process in it may have stopped perfns's child); neither %s level nor its descendants' were read",
		    f.timeouts, f.timeouts == 1 ? "" : "s", op_timeout_s,
		    f.timeouts == 1 ? "its" : "their");
	if (f.unreadable)
		msg("the level of %u user namespace%s could not be read (see the rows marked unknown)",
		    f.unreadable, f.unreadable == 1 ? "" : "s");
	if (f.timeouts || f.unreadable)
		ret = EXIT_FAIL;

	for (i = 0; i < f.n; i++) {
		free(f.nodes[i].procs);
		free(f.nodes[i].kids);
	}
	free(f.nodes);
	free(f.hash);
	free(f.jobs);
	free(roots);
	return ret;
}
