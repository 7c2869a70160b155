// SPDX-License-Identifier: GPL-2.0
/*
 * perfns get [--pid PID | --floor] - print the level in force in a user
 * namespace, or the host's floor.
 */
#include <getopt.h>
#include <stdio.h>

#include "perfns.h"

static const char get_usage[] =
	"Usage: perfns get [--pid PID | --floor] [--timeout SECONDS]\n"
	"\n"
	"Print the perf_event_paranoid level in force (the effective level) in\n"
	"the user namespace of PID, by default in your own. Reading another\n"
	"namespace takes CAP_SYS_ADMIN over it. With --floor print what the\n"
	"host's floor, kernel.perf_event_paranoid_userns, reads instead: the\n"
	"level a user namespace created in the initial one starts at. Only the\n"
	"initial user namespace has a floor, so --floor is run from there and\n"
	"takes no --pid. A namespace the host granted a level (perfns grant)\n"
	"is noted on standard error.\n"
	"\n"
	"Options:\n"
	"  -p, --pid PID        the user namespace PID is in (from a pidfd)\n"
	"  -f, --floor          print the host's floor instead of the level\n"
	"  -t, --timeout SECS   give up on a namespace after SECS (default 10)\n"
	"  -h, --help           show this help\n"
	"\n"
	"Exit status: 0 ok, 1 refused or failed, 2 usage error.\n";

int cmd_get(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "floor", no_argument, NULL, 'f' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lvl_op op = { 0 };
	const struct userns *self;
	struct lvl_result res;
	struct userns ns = { .fd = -1 };
	struct ns_perf_paranoid grant;
	bool granted;
	pid_t pid = 0;
	int c, ret;

	optind = 1;
	while ((c = subcmd_getopt("get", get_usage, ":p:ft:h", opts,
				  argc, argv, &ret)) > 0) {
		ret = 0;
		switch (c) {
		case 'p':
			ret = parse_pid_arg("get", optarg, &pid);
			break;
		case 't':
			ret = parse_timeout_arg("get", optarg);
			break;
		case 'f':
			op.read_floor = true;
			break;
		default:
			ret = usage_error("get", "unknown option");
		}
		if (ret)
			return ret;
	}
	if (!c)
		return ret;
	if (optind < argc)
		return usage_error("get", "unexpected argument '%s'",
				   argv[optind]);
	if (op.read_floor && pid)
		return usage_error("get",
				   "--floor takes no --pid: %s, and no other user namespace has one",
				   HOST_FLOOR_MSG);

	self = userns_self();
	if (!self)
		return EXIT_FAIL;
	if (op.read_floor && !userns_is_initial(self)) {
		msg("%s; read it from the initial user namespace (yours, %lu, is not)",
		    HOST_FLOOR_MSG, (unsigned long)self->ino);
		return EXIT_FAIL;
	}
	if (pid) {
		ret = userns_of_pid(pid, &ns);
		if (ret)
			return ret;
	} else {
		ns = *self;
	}
	level_io_in(&ns, &op, &res);
	granted = !op.read_floor && !userns_perf_get(&ns, &grant) &&
		  (grant.flags & NS_PERF_PARANOID_ANCHORED);
	userns_close(&ns);
	if (res.stage != LVL_OK)
		return report_level_error(&ns, &res, &op);
	if (op.read_floor && res.no_floor) {
		msg("%s", NO_FLOOR_MSG);
		return EXIT_FAIL;
	}

	printf("%d\n", op.read_floor ? res.floor : res.level);
	if (granted)
		msg("note: %s holds a grant of the host: the host's level and floor do not apply to it",
		    pid ? ns.name : "your user namespace");
	if (pid && !userns_is_self(&ns) && !kernel_per_ns(NULL))
		msg("note: this kernel has no per-namespace perf_event_paranoid; %d is the global level",
		    res.level);
	return EXIT_OK;
}
