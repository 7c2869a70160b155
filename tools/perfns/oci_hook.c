// SPDX-License-Identifier: GPL-2.0
/*
 * perfns oci-hook --level LEVEL - OCI runtime hook that locks a container's
 * user namespace at LEVEL or above.
 *
 * The runtime passes the container's state (runtime-spec, "State") on
 * stdin; its "pid" is the container's process, in the container's
 * namespaces. Run as a createRuntime (or prestart) hook, this raises the
 * container's user namespace before the container's process runs the
 * user's program.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "perfns.h"

static const char hook_usage[] =
	"Usage: perfns oci-hook --level LEVEL < STATE\n"
	"\n"
	"OCI runtime hook (createRuntime, or prestart): read the container's\n"
	"state JSON on stdin and raise the user namespace of its \"pid\" to\n"
	"LEVEL. A namespace already above LEVEL is left as it is. Refused, and\n"
	"nothing changed, when the state is malformed or has no pid, the\n"
	"process is gone, or the container shares the hook's own user\n"
	"namespace (raising that would raise the host).\n"
	"\n"
	"Options:\n"
	"  -l, --level LEVEL   the level: -1, 0, 1, 2 or 3 (3: perf off)\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 ok, 1 refused or failed, 2 usage error.\n";

/* The pid and the id (for messages) from the state document on @f. */
static int read_state(FILE *f, pid_t *pid, char *id, size_t idlen)
{
	json_error_t jerr;
	json_t *state, *v;
	json_int_t p;

	state = json_loadf(f, 0, &jerr);
	if (!state) {
		msg("malformed container state on stdin: %s (line %d, column %d)",
		    jerr.text, jerr.line, jerr.column);
		return -1;
	}
	if (!json_is_object(state)) {
		msg("malformed container state on stdin: not a JSON object");
		goto bad;
	}
	v = json_object_get(state, "id");
	snprintf(id, idlen, "%.32s", json_is_string(v) ?
		 json_string_value(v) : "");
	v = json_object_get(state, "pid");
	if (!v) {
		msg("the container state has no pid%s%s: is this hook run at createRuntime or prestart?",
		    *id ? " for " : "", id);
		goto bad;
	}
	p = json_is_integer(v) ? json_integer_value(v) : 0;
	if (p <= 0 || p > INT_MAX) {
		msg("the container state's pid is not a positive integer");
		goto bad;
	}
	*pid = (pid_t)p;
	json_decref(state);
	return 0;
bad:
	json_decref(state);
	return -1;
}

int cmd_oci_hook(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "level", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_level = false;
	struct lvl_result res;
	struct userns ns;
	int c, ret, level;
	char id[40];
	pid_t pid;

	optind = 1;
	while ((c = subcmd_getopt("oci-hook", hook_usage, ":l:h", opts,
				  argc, argv, &ret)) > 0) {
		/* 'l' */
		ret = parse_level_arg("oci-hook", optarg, &level);
		if (ret)
			return ret;
		have_level = true;
	}
	if (!c)
		return ret;
	if (optind < argc)
		return usage_error("oci-hook", "unexpected argument '%s'",
				   argv[optind]);
	if (!have_level)
		return usage_error("oci-hook", "no --level given");

	if (read_state(stdin, &pid, id, sizeof(id)))
		return EXIT_FAIL;
	ret = userns_of_pid(pid, &ns);
	if (ret)
		return ret;
	if (*id)
		snprintf(ns.name, sizeof(ns.name),
			 "user namespace of pid %d (container %s)",
			 (int)pid, id);
	if (userns_is_self(&ns)) {
		msg("container %s (pid %d) has no user namespace of its own: it shares the hook's (%lu), and raising that would raise the host's level; refusing",
		    *id ? id : "?", (int)pid, (unsigned long)ns.ino);
		userns_close(&ns);
		return EXIT_FAIL;
	}

	level_write(&ns, level, &res);
	userns_close(&ns);
	if (res.stage == LVL_WRITE && res.err == EPERM && res.have_level &&
	    level < res.level) {
		/* Locked at LEVEL or above is what was asked for. */
		msg("note: the %s is already at %d, above %d; left as it is",
		    ns.name, res.level, level);
		return EXIT_OK;
	}
	return report_level_error(&ns, &res, level);
}
