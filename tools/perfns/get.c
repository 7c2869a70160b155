// SPDX-License-Identifier: GPL-2.0
/*
 * perfns get [--pid PID] - print the level in force in a user namespace.
 */
#include <getopt.h>
#include <stdio.h>

#include "perfns.h"

static const char get_usage[] =
	"Usage: perfns get [--pid PID]\n"
	"\n"
	"Print the perf_event_paranoid level in force (the effective level) in\n"
	"the user namespace of PID, by default in your own. Reading another\n"
	"namespace's level takes CAP_SYS_ADMIN over it.\n"
	"\n"
	"Options:\n"
	"  -p, --pid PID   the user namespace of this process\n"
	"  -h, --help      show this help\n"
	"\n"
	"Exit status: 0 ok, 1 refused or failed, 2 usage error.\n";

int cmd_get(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lvl_result res;
	struct userns ns;
	pid_t pid = 0;
	int c, ret;

	optind = 1;
	while ((c = subcmd_getopt("get", get_usage, ":p:h", opts,
				  argc, argv, &ret)) > 0) {
		/* 'p' */
		ret = parse_pid_arg("get", optarg, &pid);
		if (ret)
			return ret;
	}
	if (!c)
		return ret;
	if (optind < argc)
		return usage_error("get", "unexpected argument '%s'",
				   argv[optind]);

	ret = pid ? userns_of_pid(pid, &ns) : userns_self(&ns);
	if (ret)
		return ret;
	level_read(&ns, &res);
	userns_close(&ns);
	if (res.stage != LVL_OK)
		return report_level_error(&ns, &res, 0);

	printf("%d\n", res.level);
	if (res.global)
		msg("note: this kernel has no per-namespace perf_event_paranoid; %d is the global level",
		    res.level);
	return EXIT_OK;
}
