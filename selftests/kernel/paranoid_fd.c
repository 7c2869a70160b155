// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_fd - an open /proc/sys/user/perf_event_paranoid stays bound to
 * the namespace it was opened in, and malformed writes and values outside
 * -1 to 3 are refused (contract point 7); the host's
 * /proc/sys/kernel/perf_event_paranoid parses what is written to it as
 * proc_dointvec() does on a kernel without the series.
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

/*
 * A container raised to @level and a descriptor of its
 * user.perf_event_paranoid, opened read-write inside.
 */
static struct agent *container_with_fd(struct fixture *f, int level, int *fd)
{
	struct agent *c = fixture_add(f, container_new());

	set_level(c, level);
	assert_ret(open_level_as(c, AS_ROOT, O_RDWR, fd), 0);
	fixture_fd(f, *fd);
	return c;
}

/* Rule 7: the descriptor reads the container's level on the host. */
static void fd_from_container_reads_container_level_on_host(void **state)
{
	struct fixture *f = *state;
	struct agent *c;
	int fd;

	c = container_with_fd(f, 2, &fd);
	assert_ret(fd_read_level(fd), 2);
	/* It follows the container, not the host. */
	set_host_level(1);
	assert_ret(fd_read_level(fd), 2);
	assert_ret(host_level(), 1);
	set_level(c, 3);
	assert_ret(fd_read_level(fd), 3);
	/* The host above 3: it shows 3, the highest value it takes. */
	set_host_level(5);
	assert_ret(fd_read_level(fd), 3);
	assert_level(c, 5);
	set_host_level(-1);
	assert_ret(fd_read_level(fd), 3);
}

/* Rule 7: a write through it is a write to the container: raise only. */
static void fd_from_container_cannot_lower_container_level(void **state)
{
	struct fixture *f = *state;
	struct agent *c;
	int fd;

	c = container_with_fd(f, 3, &fd);
	assert_ret(fd_write_str(fd, "2"), -EPERM);
	assert_ret(fd_write_str(fd, "-1"), -EPERM);
	assert_ret(fd_write_str(fd, "4"), -EINVAL);
	assert_ret(fd_read_level(fd), 3);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
}

/* Rule 7: raising through it changes the container, not the host. */
static void fd_from_container_raise_changes_container_not_host(void **state)
{
	struct fixture *f = *state;
	struct agent *c;
	int fd;

	c = container_with_fd(f, 2, &fd);
	assert_ret(fd_write_str(fd, "3"), 0);
	assert_ret(fd_read_level(fd), 3);
	assert_level(c, 3);
	assert_ret(host_level(), 2);
}

/* The descriptor keeps its namespace alive after the container is gone. */
static void fd_from_container_outlives_the_container(void **state)
{
	struct fixture *f = *state;
	struct agent *c;
	int fd;

	c = container_with_fd(f, 2, &fd);
	f->agents[--f->n] = NULL;
	agent_free(c);
	assert_ret(fd_read_level(fd), 2);
	assert_ret(fd_write_str(fd, "1"), -EPERM);
	assert_ret(fd_write_str(fd, "3"), 0);
	assert_ret(fd_read_level(fd), 3);
	set_host_level(1);
	assert_ret(fd_read_level(fd), 3);
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
	int before;
	int fd;

	container_with_fd(f, 2, &fd);
	assert_ret(write_fd_as(NULL, AS_NOBODY, fd, "3", &before),
		   -EPERM);
	assert_ret(before, 2);
	assert_ret(fd_read_level(fd), 2);
	/* The positive control: the host's root, through the same one. */
	assert_ret(fd_write_str(fd, "3"), 0);
	assert_ret(fd_read_level(fd), 3);
}

struct file_owner {
	long uid, gid;
};

/* stat() @arg in the agent: val[0] and val[1] the owner it shows. */
static int fn_stat(const void *arg, int in_fd, struct out *out)
{
	struct stat st;

	(void)in_fd;
	if (stat(arg, &st))
		return -errno;
	out->val[0] = st.st_uid;
	out->val[1] = st.st_gid;
	return 0;
}

static struct file_owner owner_in(struct agent *a, const char *path)
{
	struct file_owner o = { -1, -1 };
	struct out out;

	memset(&out, 0, sizeof(out));
	assert_ret(call(a, fn_stat, path, strlen(path) + 1, &out), 0);
	o.uid = out.val[0];
	o.gid = out.val[1];
	return o;
}

/*
 * The container's user.perf_event_paranoid is owned by the host's root, as
 * the user.max_* files are: inside, where the host's root is not mapped, it
 * shows as the overflow uid and gid (65534). The capability over the
 * namespace decides who writes it, not the owner: the container's root
 * writes it, a user of the container does not.
 */
static void container_user_file_owned_by_overflow_uid(void **state)
{
	struct fixture *f = *state;
	struct who user = { .uid = 1000, .caps = 0 };
	struct file_owner o;
	struct agent *c;
	struct stat st;
	int fd;

	c = container_with_fd(f, 2, &fd);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, 0);
	o = owner_in(c, USER_PATH);
	assert_int_equal(o.uid, NOBODY);
	assert_int_equal(o.gid, NOBODY);
	o = owner_in(c, PARANOID_PATH);
	assert_int_equal(o.uid, NOBODY);
	assert_int_equal(o.gid, NOBODY);
	o = owner_in(NULL, USER_PATH);
	assert_int_equal(o.uid, 0);
	assert_int_equal(o.gid, 0);
	assert_int_equal(stat(PARANOID_PATH, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, 0);

	assert_ret(open_level_as(c, user, O_WRONLY, NULL), -EACCES);
	assert_ret(write_level(c, "2"), 0);
	assert_level(c, 2);
	assert_ret(fd_write_str(fd, "3"), 0);
	assert_level(c, 3);
}

/*
 * Open on the host, then setns() into the container: the old descriptor of
 * user.perf_event_paranoid reads the host, a new open reads the container;
 * the old descriptor of kernel.perf_event_paranoid, opened on the host
 * read-write, shows the level of its reader, now the container's, and a
 * write through it is refused. val[0]: old user.perf_event_paranoid,
 * val[1]: new open, val[2]: old kernel.perf_event_paranoid, val[3]: a write
 * of "7" through it.
 */
static int fn_open_then_setns(const void *arg, int in_fd, struct out *out)
{
	int old = open(USER_PATH, O_RDONLY | O_CLOEXEC);
	int kold = open(PARANOID_PATH, O_RDWR | O_CLOEXEC);
	int level[3], err, i;

	(void)arg;
	if (old < 0 || kold < 0) {
		snprintf(out->msg, sizeof(out->msg), "open on the host: %m");
		return -ENOTRECOVERABLE;
	}
	if (setns(in_fd, CLONE_NEWUSER)) {
		snprintf(out->msg, sizeof(out->msg), "setns: %m");
		return -ENOTRECOVERABLE;
	}
	err = fd_read_int(old, &level[0]);
	if (!err)
		err = read_int(USER_PATH, &level[1]);
	if (!err)
		err = fd_read_int(kold, &level[2]);
	if (err) {
		snprintf(out->msg, sizeof(out->msg), "reading a level: %s",
			 strerrorname_np(-err));
		return err;
	}
	for (i = 0; i < 3; i++)
		out->val[i] = level[i];
	out->val[3] = fd_write_str(kold, "7");
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
	assert_ret(out.val[2], 3);
	assert_ret(out.val[3], -EPERM);
	assert_ret(host_level(), 2);
	assert_level(c, 3);
}

/* --- bad input ------------------------------------------------------- */

struct input {
	const char *data;	/* written as is, strlen() bytes */
	long off;		/* file offset of the write */
	int err;		/* expected -errno, or 0: accepted */
	int len;		/* accepted: what write(2) returns, -1: all */
	bool sets;		/* accepted: the level is then @level */
	int level;		/* (else nothing changes) */
};

struct input_test {
	bool container;		/* in a container at 3, else on the host */
	const struct input *inputs;
};

struct write_at {
	long off;
	char path[64];
	char data[64];
};

/* One pwrite(2): what it returned (the length or -errno). */
static int fn_write_at(const void *arg, int in_fd, struct out *out)
{
	const struct write_at *w = arg;
	int fd = open(w->path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	(void)in_fd;
	if (fd < 0) {
		snprintf(out->msg, sizeof(out->msg), "open %s: %m", w->path);
		return -ENOTRECOVERABLE;
	}
	n = pwrite(fd, w->data, strlen(w->data), w->off);
	close(fd);
	return n < 0 ? -errno : n;
}

/*
 * Each input written in one pwrite(2) by a fresh open, in a container at 3
 * (to its user.perf_event_paranoid) or on the host (kernel.perf_event_
 * paranoid): what the write returns and the level read back afterwards.
 */
static void bad_input(void **state)
{
	struct fixture *f = *state;
	const struct input_test *t = f->priv;
	const struct input *in;
	struct agent *c = NULL;
	struct write_at w;
	struct out out;
	int level = 2, ret, want, want_level, now;

	if (t->container) {
		c = fixture_add(f, container_new());
		set_level(c, 3);
		level = 3;
	}
	for (in = t->inputs; in->data; in++) {
		memset(&w, 0, sizeof(w));
		w.off = in->off;
		snprintf(w.path, sizeof(w.path), "%s", level_path(c));
		snprintf(w.data, sizeof(w.data), "%s", in->data);
		ret = call(c, fn_write_at, &w, sizeof(w), &out);
		want = in->err ? in->err :
		       in->len < 0 ? (int)strlen(in->data) : in->len;
		want_level = !in->err && in->sets ? in->level : level;
		now = c ? read_level(c) : host_level();
		if (ret != want || now != want_level) {
			diag("writing \"%s\" at offset %ld: %s and the level "
			     "reads %s; expected %s and %d", in->data,
			     in->off, ret_str(ret), ret_str(now),
			     ret_str(want), want_level);
			fail();
		}
		if (!c && now != 2)
			set_host_level(2);
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
		__VA_ARGS__, { .data = NULL }				\
	};								\
	static const struct input_test name = {				\
		.container = in_container, .inputs = name##_inputs,	\
	}

#define BAD(s)		{ s, 0, -EINVAL, 0, false, 0 }
#define BAD_AT(s, off)	{ s, off, -EINVAL, 0, false, 0 }
#define LOWER(s)	{ s, 0, -EPERM, 0, false, 0 }
/* Accepted whole, nothing changes. */
#define IGNORED_AT(s, off) { s, off, 0, -1, false, 0 }
/* Accepted: the level is @v, write(2) returns @n. */
#define TAKES(s, n, v)	{ s, 0, 0, n, true, v }

/*
 * The host: proc_dointvec(), as on a kernel without the series. A value
 * must be followed by ' ', '\t', '\n' or the end; what follows the first
 * value and the white space after it is left unwritten (a short write); an
 * empty write and one at an offset other than 0 are accepted and do
 * nothing (kernel.sysctl_writes_strict = 1, the default).
 */
INPUT_TEST(letters, false, BAD("abc"), BAD("x"), BAD("two\n"), BAD("e3"),
	   BAD("+3"), BAD("08"), BAD("0x"));
INPUT_TEST(overflow, false, BAD("99999999999"), BAD("2147483648"),
	   BAD("-2147483649"), BAD("18446744073709551619"),
	   BAD("000000000000000000003"));
INPUT_TEST(trailing, false, BAD("3abc"), BAD("3-"), BAD("1.5"), BAD("3\v"),
	   BAD("4,5"));
INPUT_TEST(first_value, false, TAKES("3 4", 2, 3), TAKES("3\n4\n", 2, 3),
	   TAKES("  5\t6", 4, 5), TAKES("1 2 3", 2, 1),
	   TAKES("4 x", 2, 4));
INPUT_TEST(empty, false, IGNORED_AT("", 0), BAD("\n"), BAD("   "),
	   BAD("-"), BAD("-\n"));
INPUT_TEST(offset, false, IGNORED_AT("3", 1), IGNORED_AT("1", 2),
	   IGNORED_AT("3", 100), IGNORED_AT("abc", 1));
/* A container: the strict parser, the whole write judged, raise only. */
INPUT_TEST(c_letters, true, BAD("abc"), BAD("x"), BAD("four\n"),
	   BAD("e4"), BAD("+4"), BAD("09"));
INPUT_TEST(c_overflow, true, BAD("99999999999"), BAD("2147483648"),
	   BAD("-2147483649"));
INPUT_TEST(c_trailing, true, BAD("4abc"), BAD("4 5"), BAD("4\n5\n"),
	   BAD("4-"));
INPUT_TEST(c_empty, true, BAD(""), BAD("\n"), BAD("   "));
INPUT_TEST(c_offset, true, BAD_AT("4", 1), BAD_AT("5", 3));
INPUT_TEST(c_below_level, true, LOWER("-1"), LOWER("2"), LOWER(" 1\n"),
	   LOWER("0x2"), LOWER("00"));
/* Outside -1 to 3, below the level or above: EINVAL before EPERM. */
INPUT_TEST(c_out_of_range, true, BAD("4"), BAD("-2"), BAD("0x4"),
	   BAD("010"), BAD("2147483647"), BAD("-2147483648"), BAD(" 5\n"));

/* A newline and surrounding blanks, as echo and sysctl write, are fine. */
static void host_takes_newlines_and_blanks(void **state)
{
	(void)state;
	assert_ret(write_level(NULL, "3\n"), 0);
	assert_ret(host_level(), 3);
	assert_ret(write_level(NULL, "\t1\n"), 0);
	assert_ret(host_level(), 1);
	assert_ret(write_level(NULL, "                              5\n"), 0);
	assert_ret(host_level(), 5);
	assert_ret(write_level(NULL, "\xa0\v\f\r4 \n"), 0);
	assert_ret(host_level(), 4);
}

static void container_takes_newlines_and_blanks(void **state)
{
	struct fixture *f = *state;
	struct agent *c;

	set_host_level(-1);
	c = fixture_add(f, container_new());
	assert_ret(write_level(c, "0\n"), 0);
	assert_level(c, 0);
	assert_ret(write_level(c, " 1 \n"), 0);
	assert_level(c, 1);
	/* However many blanks, as proc_dointvec() always took. */
	assert_ret(write_level(c, "                              2\n"), 0);
	assert_level(c, 2);
	assert_ret(write_level(c, "\xa0\v\f\r3 \n\t"), 0);
	assert_level(c, 3);
	assert_ret(host_level(), -1);
}

/*
 * proc_dointvec()'s number format: base 0, so "0x3" is 3 and "010" is 8
 * ("08" is not a number), on the host and in a container.
 */
static void host_number_formats_are_proc_dointvec_ones(void **state)
{
	(void)state;
	assert_ret(write_level(NULL, "0x3"), 0);
	assert_ret(host_level(), 3);
	assert_ret(write_level(NULL, "010\n"), 0);
	assert_ret(host_level(), 8);
	assert_ret(write_level(NULL, "-0x1"), 0);
	assert_ret(host_level(), -1);
	assert_ret(write_level(NULL, "0X1f"), 0);
	assert_ret(host_level(), 31);
}

static void container_number_formats_are_proc_dointvec_ones(void **state)
{
	struct fixture *f = *state;
	struct agent *c;

	set_host_level(-1);
	c = fixture_add(f, container_new());
	assert_ret(write_level(c, "-0x1"), 0);
	assert_level(c, -1);
	assert_ret(write_level(c, "0x1"), 0);
	assert_level(c, 1);
	assert_ret(write_level(c, " 02\n"), 0);
	assert_level(c, 2);
	assert_ret(write_level(c, "0X3"), 0);
	assert_level(c, 3);
	/* 010 is 8: outside the range, however it is written. */
	assert_ret(write_level(c, "010"), -EINVAL);
	assert_ret(write_level(c, "0x0"), -EPERM);
	assert_level(c, 3);
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
		TEST(container_user_file_owned_by_overflow_uid),
		TEST(fd_opened_on_host_before_setns_stays_host),
		INPUT("host_rejects_letters", letters),
		INPUT("host_rejects_overflow", overflow),
		INPUT("host_rejects_junk_right_after_the_value", trailing),
		INPUT("host_takes_the_first_of_several_values", first_value),
		INPUT("host_takes_empty_write_rejects_blank_one", empty),
		INPUT("host_ignores_write_at_nonzero_offset", offset),
		INPUT("container_rejects_letters", c_letters),
		INPUT("container_rejects_overflow", c_overflow),
		INPUT("container_rejects_trailing_junk", c_trailing),
		INPUT("container_rejects_empty_write", c_empty),
		INPUT("container_rejects_write_at_nonzero_offset", c_offset),
		INPUT("container_rejects_levels_below_its_level",
		      c_below_level),
		INPUT("container_rejects_levels_outside_minus_1_to_3",
		      c_out_of_range),
		TEST(host_takes_newlines_and_blanks),
		TEST(container_takes_newlines_and_blanks),
		TEST(host_number_formats_are_proc_dointvec_ones),
		TEST(container_number_formats_are_proc_dointvec_ones),
	};

	return RUN_TESTS("paranoid_fd", tests);
}
