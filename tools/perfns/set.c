// SPDX-License-Identifier: GPL-2.0
/*
 * perfns set LEVEL [--pid PID] - raise the level of a running user namespace.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "perfns.h"

static const char set_usage[] =
	"Usage: perfns set LEVEL [--pid PID]\n"
	"\n"
	"Set the perf_event_paranoid level of the user namespace of PID, by\n"
	"default of your own, by entering it (as nsenter does) and writing\n"
	"LEVEL there. Takes CAP_SYS_ADMIN over the namespace. Outside the\n"
	"initial namespace a level can only be raised: LEVEL below the level\n"
	"in force is refused, equal or higher is accepted. A kernel without a\n"
	"per-namespace level is detected and left alone.\n"
	"\n"
	"LEVEL is an integer: -1, 0, 1, 2 or 3 (3: no perf_event_open() without\n"
	"CAP_PERFMON in the initial namespace).\n"
	"\n"
	"Options:\n"
	"  -p, --pid PID   the user namespace of this process\n"
	"  -h, --help      show this help\n"
	"\n"
	"Exit status: 0 ok, 1 refused or failed, 2 usage error.\n";

int cmd_set(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *level_arg = NULL;
	struct lvl_result res;
	struct userns ns;
	char *args[argc + 1];
	int c, i, n = 0, ret, level;
	pid_t pid = 0;

	/* A negative LEVEL ("-1") is an argument, not an option. */
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				args[n++] = argv[i++];
			break;
		}
		if (i > 0 && is_level_word(argv[i]) && !level_arg &&
		    strcmp(argv[i - 1], "-p") && strcmp(argv[i - 1], "--pid"))
			level_arg = argv[i];
		else
			args[n++] = argv[i];
	}
	args[n] = NULL;

	optind = 1;
	while ((c = subcmd_getopt("set", set_usage, ":p:h", opts,
				  n, args, &ret)) > 0) {
		/* 'p' */
		ret = parse_pid_arg("set", optarg, &pid);
		if (ret)
			return ret;
	}
	if (!c)
		return ret;
	for (; optind < n; optind++) {
		if (level_arg)
			return usage_error("set", "unexpected argument '%s'",
					   args[optind]);
		level_arg = args[optind];
	}
	if (!level_arg)
		return usage_error("set", "no LEVEL given");
	ret = parse_level_arg("set", level_arg, &level);
	if (ret)
		return ret;

	ret = pid ? userns_of_pid(pid, &ns) : userns_self(&ns);
	if (ret)
		return ret;
	level_write(&ns, level, &res);
	userns_close(&ns);
	return report_level_error(&ns, &res, level);
}
