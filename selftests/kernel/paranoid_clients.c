// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_clients - real, unmodified clients: perf stat, sysctl(8) and
 * util-linux unshare (also with newuidmap), run by an unprivileged user
 * (setpriv to 65534). Each test runs a shell script and checks its exit
 * status and output. Inside a namespace sysctl(8) sets the level with
 * user.perf_event_paranoid; perf and sysctl read kernel.perf_event_paranoid,
 * which shows the level in force there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define NOBODY_SH "setpriv --reuid=65534 --regid=65534 --clear-groups "
#define USERNS "unshare --user --map-root-user "
#define SCRIPT_DIR "/tmp/selftests-clients"

static void write_script(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	mkdir(SCRIPT_DIR, 0755);
	snprintf(path, sizeof(path), SCRIPT_DIR "/%s", name);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
}

/* The unprivileged host user at 2: perf stat works. */
static void perf_stat_works_for_unprivileged_host_user_at_2(void **state)
{
	(void)state;
	assert_ret(sh(NOBODY_SH "perf stat -e task-clock true"), 0);
	assert_output_has("task-clock");
}

/* Control: the same user in its own user namespace at 2. */
static void perf_stat_works_in_unshared_container_at_2(void **state)
{
	(void)state;
	assert_ret(sh(NOBODY_SH USERNS "perf stat -e task-clock true"), 0);
	assert_output_has("task-clock");
}

/*
 * Inside unshare --user --map-root-user, sysctl -w user.perf_event_paranoid
 * raises the container to 3 and perf stat then fails, reporting the
 * container's level. The host's unprivileged user keeps using perf.
 */
static void perf_stat_fails_in_unshared_container_raised_to_3(void **state)
{
	(void)state;
	assert_ret(sh(NOBODY_SH USERNS "sh -c '"
		      "sysctl -w user.perf_event_paranoid=3 || exit 10; "
		      "exec perf stat -e task-clock true'"), 255);
	assert_output_has("user.perf_event_paranoid = 3");
	assert_output_has("perf_event_paranoid setting is 3");
	assert_ret(host_level(), 2);
	assert_ret(sh(NOBODY_SH "perf stat -e task-clock true"), 0);
}

/* sysctl -n inside the container prints the container's level. */
static void sysctl_in_unshared_container_prints_its_level(void **state)
{
	(void)state;
	assert_ret(sh(NOBODY_SH USERNS "sh -c '"
		      "echo in=$(sysctl -n kernel.perf_event_paranoid); "
		      "echo user=$(sysctl -n user.perf_event_paranoid); "
		      "sysctl -q -w user.perf_event_paranoid=3 || exit 10; "
		      "echo raised=$(sysctl -n kernel.perf_event_paranoid); "
		      "echo user=$(sysctl -n user.perf_event_paranoid); "
		      "echo nested=$(" USERNS "sysctl -n "
		      "kernel.perf_event_paranoid user.perf_event_paranoid)'"),
		   0);
	assert_output_has("in=2\nuser=2\n");
	assert_output_has("raised=3\nuser=3\n");
	assert_output_has("nested=3 3\n");
	assert_ret(sh("echo host=$(sysctl -n kernel.perf_event_paranoid "
		      "user.perf_event_paranoid)"), 0);
	assert_output_has("host=2 2\n");
}

/*
 * sysctl -a lists each key once, with the container's level; the floor
 * and grant_min read what the host wrote (-1: no floor; 2), as anywhere.
 * Above 3, kernel.perf_event_paranoid shows the host's level as it is and
 * user.perf_event_paranoid shows 3.
 */
static void sysctl_a_in_unshared_container_lists_its_level(void **state)
{
	static const char script[] = NOBODY_SH USERNS "sh -c '"
		"sysctl -q -w user.perf_event_paranoid=3 || exit 10; "
		"sysctl -a 2>/dev/null | grep -c perf_event_paranoid; "
		"sysctl -a 2>/dev/null | grep perf_event_paranoid'";

	(void)state;
	assert_ret(sh(script), 0);
	assert_string_equal(sh_output, "4\nkernel.perf_event_paranoid = 3\n"
			    "kernel.perf_event_paranoid_grant_min = 2\n"
			    "kernel.perf_event_paranoid_userns = -1\n"
			    "user.perf_event_paranoid = 3\n");
	set_host_level(5);
	assert_ret(sh(script), 0);
	assert_string_equal(sh_output, "4\nkernel.perf_event_paranoid = 5\n"
			    "kernel.perf_event_paranoid_grant_min = 2\n"
			    "kernel.perf_event_paranoid_userns = -1\n"
			    "user.perf_event_paranoid = 3\n");
}

/*
 * sysctl -w cannot lower the container's level (EPERM), nor set it above 3
 * (EINVAL), and cannot write kernel.perf_event_paranoid at all: the
 * container's root is uid 65534 on the host (EACCES).
 */
static void sysctl_cannot_lower_unshared_container_level(void **state)
{
	(void)state;
	assert_ret(sh(NOBODY_SH USERNS "sh -c '"
		      "sysctl -q -w user.perf_event_paranoid=3 || exit 10; "
		      "sysctl -w user.perf_event_paranoid=2; echo rc=$?; "
		      "sysctl -w user.perf_event_paranoid=4; echo irc=$?; "
		      "sysctl -w kernel.perf_event_paranoid=4; echo krc=$?; "
		      "echo now=$(sysctl -n kernel.perf_event_paranoid)'"), 0);
	assert_output_has("setting key \"user.perf_event_paranoid\": "
			  "Operation not permitted");
	assert_output_has("rc=1\n");
	assert_output_has("setting key \"user.perf_event_paranoid\": "
			  "Invalid argument");
	assert_output_has("irc=1\n");
	assert_output_has("permission denied on key "
			  "\"kernel.perf_event_paranoid\"");
	assert_output_has("krc=1\n");
	assert_output_has("now=3\n");
	assert_ret(host_level(), 2);
}

/*
 * unshare --user --map-root-user run by the host's root: the namespace's
 * root is the host's uid 0, so it opens kernel.perf_event_paranoid for
 * writing, and sysctl -w is refused with EPERM; the host keeps its level
 * and the namespace sets its own through user.perf_event_paranoid.
 */
static void sysctl_kernel_key_refused_in_root_mapped_namespace(void **state)
{
	(void)state;
	assert_ret(sh(USERNS "sh -c '"
		      "sysctl -w kernel.perf_event_paranoid=3; echo krc=$?; "
		      "sysctl -w kernel.perf_event_paranoid=2; echo same=$?; "
		      "sysctl -w user.perf_event_paranoid=3; echo urc=$?; "
		      "echo now=$(sysctl -n kernel.perf_event_paranoid)'"), 0);
	assert_output_has("setting key \"kernel.perf_event_paranoid\": "
			  "Operation not permitted");
	assert_output_has("krc=1\n");
	assert_output_has("same=1\n");
	assert_output_has("user.perf_event_paranoid = 3\n");
	assert_output_has("urc=0\n");
	assert_output_has("now=3\n");
	assert_ret(host_level(), 2);
	assert_ret(sh("sysctl -n kernel.perf_event_paranoid"), 0);
	assert_output_has("2\n");
}

/*
 * A rootless container made by unshare --map-users/--map-groups through
 * newuidmap/newgidmap (root -> 100000), with /etc/subuid and /etc/subgid
 * replaced by bind mounts in a private mount namespace. Its root raises the
 * level with sysctl, cannot lower it, cannot write the host's key, and
 * perf stat is refused.
 */
static void newuidmap_rootless_container_raises_with_sysctl(void **state)
{
	(void)state;
	write_script("inner.sh",
		     "echo map=$(cat /proc/self/uid_map)\n"
		     "echo id=$(id -u):$(id -g)\n"
		     "sysctl -w user.perf_event_paranoid=3 || exit 10\n"
		     "sysctl -w user.perf_event_paranoid=1\n"
		     "echo rc=$?\n"
		     "sysctl -w kernel.perf_event_paranoid=1\n"
		     "echo krc=$?\n"
		     "echo now=$(sysctl -n kernel.perf_event_paranoid)\n"
		     "perf stat -e task-clock true\n"
		     "echo perf=$?\n");
	write_script("outer.sh",
		     "set -e\n"
		     "mount --make-rprivate /\n"
		     "echo nobody:100000:65536 > " SCRIPT_DIR "/subuid\n"
		     "echo nobody:100000:65536 > " SCRIPT_DIR "/subgid\n"
		     "mount --bind " SCRIPT_DIR "/subuid /etc/subuid\n"
		     "mount --bind " SCRIPT_DIR "/subgid /etc/subgid\n"
		     "exec " NOBODY_SH "unshare --user "
		     "--map-users=100000,0,65536 --map-groups=100000,0,65536 "
		     "--setuid 0 --setgid 0 sh " SCRIPT_DIR "/inner.sh\n");
	assert_ret(sh("unshare --mount sh " SCRIPT_DIR "/outer.sh"), 0);
	assert_output_has("map= 0 100000 65536\n");
	assert_output_has("id=0:0\n");
	assert_output_has("user.perf_event_paranoid = 3\n");
	assert_output_has("Operation not permitted");
	assert_output_has("rc=1\n");
	assert_output_has("permission denied on key");
	assert_output_has("krc=1\n");
	assert_output_has("now=3\n");
	assert_output_has("perf=255\n");
	assert_ret(host_level(), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(perf_stat_works_for_unprivileged_host_user_at_2),
		TEST(perf_stat_works_in_unshared_container_at_2),
		TEST(perf_stat_fails_in_unshared_container_raised_to_3),
		TEST(sysctl_in_unshared_container_prints_its_level),
		TEST(sysctl_a_in_unshared_container_lists_its_level),
		TEST(sysctl_cannot_lower_unshared_container_level),
		TEST(sysctl_kernel_key_refused_in_root_mapped_namespace),
		TEST(newuidmap_rootless_container_raises_with_sysctl),
	};

	return RUN_TESTS("paranoid_clients", tests);
}
