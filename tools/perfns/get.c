// SPDX-License-Identifier: GPL-2.0
/*
 * perfns get [--pid PID] [--verbose | --floor] - print the level in force
 * in a user namespace (with --verbose its own level and its grant too), or
 * the host's floor.
 *
 * The level in force is what the kernel says (NS_PERF_PARANOID_GET), not
 * what kernel.perf_event_paranoid reads in the namespace, which counts the
 * host's level as written. The initial namespace's one line is the host's
 * level as written, as on a kernel without the series, with a note where
 * the kernel counts it for less.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "perfns.h"

static const char get_usage[] =
	"Usage: perfns get [--pid PID] [--verbose | --floor] [--timeout SECONDS]\n"
	"\n"
	"Print the perf_event_paranoid level in force (the effective level) in\n"
	"the user namespace of PID, by default in your own, as the kernel\n"
	"says it (NS_PERF_PARANOID_GET; kernel.perf_event_paranoid read there\n"
	"on a kernel without it). Reading another namespace takes\n"
	"CAP_SYS_ADMIN over it. For the initial namespace print the host's\n"
	"level as written, kernel.perf_event_paranoid, with a note on\n"
	"standard error where the kernel counts it for less (above 2 on the\n"
	"series' mainline form).\n"
	"With --verbose print three lines instead: the level in force, the\n"
	"namespace's own level (none until something writes its\n"
	"user.perf_event_paranoid: it follows its parent, up and down; the\n"
	"host's level as written for the initial namespace) and the level the\n"
	"host granted it (perfns grant; none without a grant). Without\n"
	"--verbose a grant is noted on standard error. With --floor print the\n"
	"host's floor, kernel.perf_event_paranoid_userns, as it was written:\n"
	"-1 is no floor. Only the initial user namespace has a floor, so\n"
	"--floor is run from there and takes no --pid.\n"
	"\n"
	"Options:\n"
	"  -p, --pid PID        the user namespace PID is in (from a pidfd)\n"
	"  -v, --verbose        also the namespace's own level and its grant\n"
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
		{ "verbose", no_argument, NULL, 'v' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lvl_op op = { 0 };
	const struct userns *self;
	struct lvl_result res = { 0 };
	struct userns ns = { .fd = -1 };
	struct ns_perf_paranoid perf;
	bool verbose = false, initial;
	int c, ret, perf_err;
	pid_t pid = 0;

	optind = 1;
	while ((c = subcmd_getopt("get", get_usage, ":p:fvt:h", opts,
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
		case 'v':
			verbose = true;
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
	if (op.read_floor && verbose)
		return usage_error("get",
				   "--verbose shows a namespace's levels and --floor the host's floor: give one");

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
	/*
	 * Outside the initial namespace res.level is the level in force, and
	 * res.perf what the kernel said of it: the rest of one answer.
	 */
	level_io_in(&ns, &op, &res);
	if (op.read_floor) {
		perf_err = 0;
	} else if (res.perf_asked) {
		perf = res.perf;
		perf_err = res.perf_err;
	} else {
		perf_err = -userns_perf_get(&ns, &perf);
	}
	initial = userns_is_initial(&ns);
	userns_close(&ns);
	if (res.stage != LVL_OK)
		return report_level_error(&ns, &res, &op);
	if (op.read_floor && res.no_floor) {
		msg("%s", NO_FLOOR_MSG);
		return EXIT_FAIL;
	}
	if (op.read_floor) {
		printf("%d\n", res.floor);
		return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
	}
	/*
	 * A kernel without the ioctls (ENOTTY) has no own level nor grant to
	 * show, and its level in force is the one read. The initial
	 * namespace's one line does not need the ioctl.
	 */
	if (perf_err && perf_err != ENOTTY && (verbose || !initial)) {
		msg("cannot ask the kernel for the level in force in %s%s: %s",
		    pid ? "the " : "", ns.name, perf_ioctl_error(perf_err));
		return EXIT_FAIL;
	}

	if (!verbose)
		printf("%d\n", res.level);
	else if (perf_err)
		printf("level in force: %d\n", res.level);
	else
		print_perf_state(&perf, NULL);
	if (!verbose && initial && !perf_err && perf.level != res.level)
		msg("note: this kernel counts the host's level %d as %d: %d is the level in force in the initial user namespace",
		    res.level, perf.level, perf.level);
	if (!verbose && !perf_err && (perf.flags & NS_PERF_PARANOID_ANCHORED))
		msg("note: %s holds a grant of the host (level %d): the host's level and floor do not apply to it, kernel.perf_event_paranoid_grant_min does",
		    pid ? ns.name : "your user namespace", perf.granted);
	if (pid && !userns_is_self(&ns) && !kernel_per_ns(NULL))
		msg("note: this kernel has no per-namespace perf_event_paranoid; %d is the global level",
		    res.level);
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}
