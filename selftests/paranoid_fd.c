// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_fd - an open /proc/sys/kernel/perf_event_paranoid stays bound to
 * the namespace it was opened in, and malformed writes are refused
 * (contract point 7).
 *
 * The container's descriptors reach this program over the agent's unix
 * socket (SCM_RIGHTS): this program is the host, as root.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

/* A container raised to 3 and its descriptor, opened read-write inside. */
static struct agent *container_with_fd(struct fixture *f, int *fd)
{
	struct agent *c = fixture_add(f, container_new());

	set_level(c, 3);
	assert_ret(open_level_as(c, AS_ROOT, O_RDWR, fd), 0);
	fixture_fd(f, *fd);
	return c;
}

/* Contract 7: the descriptor reads the container's level on the host. */
static void fd_from_container_reads_container_level_on_host(void **state)
{
	struct fixture *f = *state;
	struct agent *c;
	int fd;

	c = container_with_fd(f, &fd);
	assert_ret(fd_read_level(fd), 3);
	assert_ret(host_level(), 2);
	/* It follows the container, not the host. */
	set_level(c, 4);
	assert_ret(fd_read_level(fd), 4);
	set_host_level(5);
	assert_ret(fd_read_level(fd), 5);
	set_host_level(1);
	assert_ret(fd_read_level(fd), 4);
}

/* Contract 7: a write through it is a write to the container: raise only. */
static void fd_from_container_cannot_lower_container_level(void **state)
{
	struct fixture *f = *state;
	struct agent *c;
	int fd;

	c = container_with_fd(f, &fd);
	assert_ret(fd_write_level(fd, "2"), -EPERM);
	assert_ret(fd_write_level(fd, "-1"), -EPERM);
	assert_ret(fd_read_level(fd), 3);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
}

/* Contract 7: raising through it changes the container, not the host. */
static void fd_from_container_raise_changes_container_not_host(void **state)
{
	struct fixture *f = *state;
	struct agent *c;
	int fd;

	c = container_with_fd(f, &fd);
	assert_ret(fd_write_level(fd, "4"), 0);
	assert_ret(fd_read_level(fd), 4);
	assert_level(c, 4);
	assert_ret(host_level(), 2);
}

/* The descriptor keeps its namespace alive after the container is gone. */
static void fd_from_container_outlives_the_container(void **state)
{
	struct fixture *f = *state;
	struct agent *c;
	int fd;

	c = container_with_fd(f, &fd);
	f->agents[--f->n] = NULL;
	agent_free(c);
	assert_ret(fd_read_level(fd), 3);
	assert_ret(fd_write_level(fd, "2"), -EPERM);
	assert_ret(fd_write_level(fd, "6"), 0);
	assert_ret(fd_read_level(fd), 6);
	assert_ret(host_level(), 2);
}

static int fn_write_in_fd(const void *arg, int in_fd, struct out *out)
{
	out->val[0] = fd_read_level(in_fd);
	return fd_write_level(in_fd, arg);
}

/*
 * The capability is checked again at each write, with the writer's
 * credentials: an unprivileged host user handed a descriptor opened for
 * writing by the container's root can read through it but not write.
 */
static void fd_from_container_not_writable_by_unprivileged_user(
	void **state)
{
	struct fixture *f = *state;
	struct out out;
	int fd;

	container_with_fd(f, &fd);
	assert_ret(call_as(NULL, AS_NOBODY, fn_write_in_fd, "5", 2, fd, &out),
		   -EPERM);
	assert_ret(out.val[0], 3);
	assert_ret(fd_read_level(fd), 3);
}

/*
 * The container's file is owned by the container's root (100000 on the
 * host), as for the net and ipc sysctls; the host's by the host's root.
 */
static void container_file_owned_by_container_root(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	int fd;

	container_with_fd(f, &fd);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_uid, ROOTLESS_BASE);
	assert_int_equal(st.st_gid, ROOTLESS_BASE);
	assert_int_equal(stat(PARANOID_PATH, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, 0);
}

/*
 * Open on the host, then setns() into the container: the old descriptor
 * reads the host, a new open reads the container. val[0]: old descriptor,
 * val[1]: new open, val[2]: a write of "7" through the old descriptor.
 */
static int fn_open_then_setns(const void *arg, int in_fd, struct out *out)
{
	int old = open(PARANOID_PATH, O_RDWR | O_CLOEXEC), fd;

	(void)arg;
	if (old < 0)
		return OPEN_ERR(errno);
	if (setns(in_fd, CLONE_NEWUSER)) {
		snprintf(out->msg, sizeof(out->msg), "setns: %m");
		return -ENOTRECOVERABLE;
	}
	out->val[0] = fd_read_level(old);
	fd = open(PARANOID_PATH, O_RDONLY | O_CLOEXEC);
	out->val[1] = fd < 0 ? OPEN_ERR(errno) : fd_read_level(fd);
	/* No CAP_SYS_ADMIN over the host any more. */
	out->val[2] = fd_write_level(old, "7");
	return 0;
}

static void fd_opened_on_host_before_setns_stays_host(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());
	int nsfd = fixture_fd(f, agent_userns_fd(c));
	struct out out;

	set_level(c, 3);
	assert_ret(call_as(NULL, AS_ROOT, fn_open_then_setns, NULL, 0, nsfd,
			   &out), 0);
	assert_ret(out.val[0], 2);
	assert_ret(out.val[1], 3);
	assert_ret(out.val[2], -EPERM);
	assert_ret(host_level(), 2);
	assert_level(c, 3);
}

/* --- bad input -------------------------------------------------------- */

struct input {
	const char *data;	/* written as is, strlen() bytes */
	long off;		/* file offset of the write */
	int err;		/* expected -errno */
};

struct input_test {
	bool container;		/* in a container at 3, else on the host */
	const struct input *inputs;
};

struct write_at {
	long off;
	char data[64];
};

static int fn_write_at(const void *arg, int in_fd, struct out *out)
{
	const struct write_at *w = arg;
	int fd = open(PARANOID_PATH, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	(void)in_fd;
	(void)out;
	if (fd < 0)
		return OPEN_ERR(errno);
	n = pwrite(fd, w->data, strlen(w->data), w->off);
	close(fd);
	if (n < 0)
		return -errno;
	out->val[0] = n;
	return n == (ssize_t)strlen(w->data) ? 0 : -EIO;
}

static void bad_input(void **state)
{
	struct fixture *f = *state;
	const struct input_test *t = f->priv;
	const struct input *in;
	struct agent *c = NULL;
	struct write_at w;
	struct out out;
	int level = 2, ret;

	if (t->container) {
		c = fixture_add(f, container_new());
		set_level(c, 3);
		level = 3;
	}
	for (in = t->inputs; in->data; in++) {
		memset(&w, 0, sizeof(w));
		w.off = in->off;
		snprintf(w.data, sizeof(w.data), "%s", in->data);
		ret = call(c, fn_write_at, &w, sizeof(w), &out);
		if (ret != in->err) {
			diag("writing \"%s\" at offset %ld: %s, expected %s",
			     in->data, in->off, ret_str(ret),
			     ret_str(in->err));
			fail();
		}
		assert_level(c, level);
		assert_ret(host_level(), 2);
	}
}

static int bad_input_setup(void **state)
{
	const struct input_test *t = *state;
	int ret = fixture_setup(state);

	if (*state)
		((struct fixture *)*state)->priv = (void *)t;
	return ret;
}

#define INPUT_TEST(name, in_container, ...)				\
	static const struct input name##_inputs[] = {			\
		__VA_ARGS__, { NULL, 0, 0 }				\
	};								\
	static const struct input_test name = {				\
		.container = in_container, .inputs = name##_inputs,	\
	}

#define BAD(s)		{ s, 0, -EINVAL }
#define BAD_AT(s, off)	{ s, off, -EINVAL }
#define LOWER(s)	{ s, 0, -EPERM }

INPUT_TEST(letters, false, BAD("abc"), BAD("x"), BAD("two\n"), BAD("e3"),
	   BAD("+3"), BAD("08"), BAD("0x"));
INPUT_TEST(overflow, false, BAD("99999999999"), BAD("2147483648"),
	   BAD("-2147483649"), BAD("18446744073709551619"));
INPUT_TEST(trailing, false, BAD("3abc"), BAD("3 4"), BAD("3\n4\n"),
	   BAD("3-"), BAD("1.5"));
INPUT_TEST(empty, false, BAD(""), BAD("\n"), BAD("   "), BAD("-"));
INPUT_TEST(offset, false, BAD_AT("3", 1), BAD_AT("1", 2), BAD_AT("3", 100));
INPUT_TEST(c_letters, true, BAD("abc"), BAD("x"), BAD("four\n"),
	   BAD("e4"), BAD("+4"), BAD("09"));
INPUT_TEST(c_overflow, true, BAD("99999999999"), BAD("2147483648"),
	   BAD("-2147483649"));
INPUT_TEST(c_trailing, true, BAD("4abc"), BAD("4 5"), BAD("4\n5\n"),
	   BAD("4-"));
INPUT_TEST(c_empty, true, BAD(""), BAD("\n"), BAD("   "));
INPUT_TEST(c_offset, true, BAD_AT("4", 1), BAD_AT("5", 3));
INPUT_TEST(c_below_floor, true, LOWER("-1"), LOWER("2"),
	   LOWER("-2147483648"), LOWER(" 1\n"));

/* A newline and surrounding blanks, as echo and sysctl write, are fine. */
static void level_with_newline_and_blanks_accepted(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	assert_ret(write_level(c, "3\n"), 0);
	assert_level(c, 3);
	assert_ret(write_level(c, " 4 \n"), 0);
	assert_level(c, 4);
	assert_ret(write_level(NULL, "3\n"), 0);
	assert_ret(host_level(), 3);
	assert_ret(write_level(NULL, "\t1\n"), 0);
	assert_ret(host_level(), 1);
	/* However many blanks, as proc_dointvec() always took. */
	assert_ret(write_level(c, "                              5\n"), 0);
	assert_level(c, 5);
}

/*
 * The format is proc_dointvec()'s, as before the series: base 0, so "0x3"
 * is 3 and "010" is 8 ("08" is not a number).
 */
static void proc_dointvec_number_formats_keep_their_meaning(void **state)
{
	struct fixture *f = *state;
	struct agent *c = fixture_add(f, container_new());

	assert_ret(write_level(NULL, "0x3"), 0);
	assert_ret(host_level(), 3);
	assert_ret(write_level(NULL, "010\n"), 0);
	assert_ret(host_level(), 8);
	assert_ret(write_level(NULL, "-0x1"), 0);
	assert_ret(host_level(), -1);
	set_host_level(2);
	assert_ret(write_level(c, "0x4"), 0);
	assert_level(c, 4);
	assert_ret(write_level(c, " 011\n"), 0);
	assert_level(c, 9);
	assert_ret(write_level(c, "0x8"), -EPERM);
	assert_level(c, 9);
}

#define INPUT(tname, t)							\
	{ .name = tname, .test_func = bad_input,			\
	  .setup_func = bad_input_setup,				\
	  .teardown_func = fixture_teardown,				\
	  .initial_state = (void *)&t }

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(fd_from_container_reads_container_level_on_host),
		TEST(fd_from_container_cannot_lower_container_level),
		TEST(fd_from_container_raise_changes_container_not_host),
		TEST(fd_from_container_outlives_the_container),
		TEST(fd_from_container_not_writable_by_unprivileged_user),
		TEST(container_file_owned_by_container_root),
		TEST(fd_opened_on_host_before_setns_stays_host),
		INPUT("host_rejects_letters", letters),
		INPUT("host_rejects_overflow", overflow),
		INPUT("host_rejects_trailing_junk", trailing),
		INPUT("host_rejects_empty_write", empty),
		INPUT("host_rejects_write_at_nonzero_offset", offset),
		INPUT("container_rejects_letters", c_letters),
		INPUT("container_rejects_overflow", c_overflow),
		INPUT("container_rejects_trailing_junk", c_trailing),
		INPUT("container_rejects_empty_write", c_empty),
		INPUT("container_rejects_write_at_nonzero_offset", c_offset),
		INPUT("container_rejects_levels_below_its_floor",
		      c_below_floor),
		TEST(level_with_newline_and_blanks_accepted),
		TEST(proc_dointvec_number_formats_keep_their_meaning),
	};

	return RUN_TESTS("paranoid_fd", tests);
}
