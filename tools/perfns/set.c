// SPDX-License-Identifier: GPL-2.0
/*
 * perfns set [LEVEL] [--floor FLOOR] [--pid PID [--exact]] - raise the level
 * of a running user namespace, or set the host's level or floor.
 *
 * With --pid the namespace is the container PID is in: the one directly
 * below the caller's on the way up from PID's own (NS_GET_PARENT). A tenant
 * whose pid 1 re-execs into a nested namespace therefore still gets its
 * whole container raised, not only the nested namespace. The caller's own
 * namespace is never reached through --pid: a pid that was reused by a
 * process of the host must not raise the host.
 *
 * The floor, kernel.perf_event_paranoid_userns, is the host's only: --floor
 * is refused with --pid, and from any namespace but the initial one.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "perfns.h"

static const char set_usage[] =
	"Usage: perfns set [LEVEL] [--floor FLOOR] [--pid PID [--exact]]\n"
	"                  [--timeout SECONDS]\n"
	"\n"
	"Set the perf_event_paranoid level of a user namespace to LEVEL, by\n"
	"entering it (as nsenter does) and writing user.perf_event_paranoid\n"
	"there. Takes CAP_SYS_ADMIN over the namespace. Outside the initial\n"
	"namespace a level can only be raised: a value below the level in force\n"
	"is refused, equal or higher is accepted and becomes the namespace's own\n"
	"level. A namespace without one follows its parent up and down; with\n"
	"one, lowering the levels above it (the host's, a parent's) no longer\n"
	"takes it below LEVEL, while raising them still raises it. In the\n"
	"initial namespace LEVEL is the host's kernel.perf_event_paranoid\n"
	"(takes uid 0), and --floor FLOOR sets the host's floor,\n"
	"kernel.perf_event_paranoid_userns (takes uid 0 and CAP_SYS_ADMIN): the\n"
	"lowest level of every other user namespace but the granted ones and\n"
	"those below them. Only the initial namespace has a floor: --floor is\n"
	"refused with --pid and in any other namespace. A kernel without a\n"
	"per-namespace level, or without the floor, is detected and left alone.\n"
	"\n"
	"Without --pid: your own user namespace. With --pid: the container PID\n"
	"is in, i.e. the user namespace directly below yours that PID's own is\n"
	"in or nested under (the level reaches everything below it); --exact\n"
	"takes PID's own namespace however deep it is. A PID in your own user\n"
	"namespace is refused: run without --pid to change your own. The line\n"
	"printed says which namespace was changed; for a namespace other than\n"
	"the initial one, lines as perfns get --verbose prints follow, with\n"
	"what each was before.\n"
	"\n"
	"LEVEL is -1, 0, 1, 2 or 3 (3: no perf_event_open() without CAP_PERFMON\n"
	"in the initial namespace); the host's own level takes any integer.\n"
	"FLOOR is -1 (no floor), 0, 1, 2 or 3.\n"
	"\n"
	"Options:\n"
	"  -f, --floor FLOOR    set the host's floor (as well as LEVEL, if given)\n"
	"  -p, --pid PID        the container of this process (from a pidfd)\n"
	"  -x, --exact          PID's own user namespace, even nested deeper\n"
	"  -t, --timeout SECS   give up on the namespace after SECS (default 10)\n"
	"  -h, --help           show this help\n"
	"\n"
	"Exit status: 0 ok, 1 refused or failed, 2 usage error.\n";

/* Options whose argument may look like a negative number. */
static bool option_takes_arg(const char *opt)
{
	static const char *const with_arg[] = {
		"-p", "--pid", "-f", "--floor", "-t", "--timeout",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(with_arg); i++)
		if (!strcmp(opt, with_arg[i]))
			return true;
	return false;
}

int cmd_set(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "floor", required_argument, NULL, 'f' },
		{ "pid", required_argument, NULL, 'p' },
		{ "exact", no_argument, NULL, 'x' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *level_arg = NULL;
	struct userns ns = { .fd = -1 };
	const struct userns *self;
	struct ns_perf_paranoid before, after;
	struct lvl_op op = { 0 };
	struct lvl_result res;
	bool perf;
	char *args[argc + 1];
	int c, i, n = 0, ret;
	bool exact = false;
	char what[512];
	pid_t pid = 0;

	/* A negative LEVEL ("-1") is an argument, not an option. */
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				args[n++] = argv[i++];
			break;
		}
		if (i > 0 && is_level_word(argv[i]) && !level_arg &&
		    !option_takes_arg(argv[i - 1]))
			level_arg = argv[i];
		else
			args[n++] = argv[i];
	}
	args[n] = NULL;

	optind = 1;
	while ((c = subcmd_getopt("set", set_usage, ":f:p:xt:h", opts,
				  n, args, &ret)) > 0) {
		ret = 0;
		switch (c) {
		case 'f':
			ret = parse_floor_arg("set", optarg, &op.floor);
			op.write_floor = true;
			break;
		case 'p':
			ret = parse_pid_arg("set", optarg, &pid);
			break;
		case 'x':
			exact = true;
			break;
		case 't':
			ret = parse_timeout_arg("set", optarg);
			break;
		default:
			ret = usage_error("set", "unknown option");
		}
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
	if (!level_arg && !op.write_floor)
		return usage_error("set", "no LEVEL given");
	if (level_arg) {
		ret = parse_level_arg("set", level_arg, &op.level);
		if (ret)
			return ret;
		op.write_level = true;
	}
	if (exact && !pid)
		return usage_error("set", "--exact needs --pid");
	/* --pid never names the initial namespace: see userns_container_of(). */
	if (op.write_level && pid) {
		ret = check_ns_level("set", op.level);
		if (ret)
			return ret;
	}
	if (op.write_floor && pid)
		return usage_error("set",
				   "--floor takes no --pid: %s, and no other user namespace has one; lock a namespace by raising its level",
				   HOST_FLOOR_MSG);

	self = userns_self();
	if (!self)
		return EXIT_FAIL;
	if (op.write_level && !userns_is_initial(self)) {
		ret = check_ns_level("set", op.level);
		if (ret)
			return ret;
	}
	if (op.write_floor && !userns_is_initial(self)) {
		msg("%s; your user namespace (%lu) is not the initial one: nothing changed (lock the namespaces below yours by raising their level)",
		    HOST_FLOOR_MSG, (unsigned long)self->ino);
		return EXIT_FAIL;
	}
	/* A kernel with the series but not the floor: before the level too. */
	if (op.write_floor && kernel_per_ns(NULL) > 0 && !kernel_has_floor()) {
		msg("%s; nothing changed", NO_FLOOR_MSG);
		return EXIT_FAIL;
	}
	if (pid) {
		ret = userns_container_of("set", pid, exact, self, &ns, what,
					  sizeof(what));
		if (ret)
			return ret;
	} else {
		ns = *self;
		snprintf(what, sizeof(what), "your user namespace %lu%s",
			 (unsigned long)self->ino, userns_is_initial(self) ?
			 " (the initial one)" : "");
	}
	/* What the kernel says of the namespace, before and after the write. */
	perf = !userns_is_initial(&ns) && !userns_perf_get(&ns, &before);
	level_io_in(&ns, &op, &res);
	perf = perf && !userns_perf_get(&ns, &after);
	userns_close(&ns);
	if (res.stage != LVL_OK)
		return report_level_error(&ns, &res, &op);

	if (op.write_level && op.write_floor)
		printf("level %d and floor %d set on %s\n", op.level,
		       op.floor, what);
	else if (op.write_level)
		printf("level %d set on %s\n", op.level, what);
	else
		printf("floor %d set on %s\n", op.floor, what);
	if (perf)
		print_perf_state(&after, &before);
	return fflush(stdout) ? EXIT_FAIL : EXIT_OK;
}
