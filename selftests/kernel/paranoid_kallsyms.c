// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_kallsyms - /proc/kallsyms shows addresses to a reader without
 * CAP_SYSLOG only when kptr_restrict is 0 and the level in force in the
 * reader's user namespace is at most 1 (contract point 8).
 *
 * The fixture sets kernel.kptr_restrict to 0 and restores it afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Read the first lines of /proc/kallsyms: val[0] lines, val[1] non-zero. */
static int fn_kallsyms(const void *arg, int in_fd, struct out *out)
{
	char line[512];
	FILE *f = fopen("/proc/kallsyms", "re");
	unsigned long long addr;

	(void)arg;
	(void)in_fd;
	if (!f)
		return -errno;
	while (out->val[0] < 5000 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx ", &addr) != 1)
			continue;
		out->val[0]++;
		if (addr)
			out->val[1]++;
	}
	fclose(f);
	return 0;
}

/*
 * 1: addresses shown (at least 90% non-zero: a few symbols may be at 0),
 * 0: all zeros, -errno, or -EBADMSG for anything in between.
 */
static int addresses_shown(struct agent *a, struct who w)
{
	struct out out;
	int ret;

	memset(&out, 0, sizeof(out));
	ret = call_as(a, w, fn_kallsyms, NULL, 0, -1, &out);
	if (ret)
		return ret;
	if (out.val[0] < 1000) {
		diag("only %ld symbols in /proc/kallsyms", out.val[0]);
		return -ENODATA;
	}
	if (out.val[1] == 0)
		return 0;
	if (out.val[1] * 10 >= out.val[0] * 9)
		return 1;
	diag("%ld of %ld addresses non-zero", out.val[1], out.val[0]);
	return -EBADMSG;
}

/* kernel.kptr_restrict set to @v and read back: 0 or -1. */
static int write_kptr_restrict(int v)
{
	int now;

	return write_int(KPTR_PATH, v) || read_int(KPTR_PATH, &now) ||
	       now != v ? -1 : 0;
}

static int kallsyms_setup(void **state)
{
	int ret = fixture_setup(state), old;

	if (ret || read_int(KPTR_PATH, &old) || old < 0)
		return -1;
	((struct fixture *)*state)->priv = (void *)(long)(old + 1);
	return write_kptr_restrict(0);
}

static int kallsyms_teardown(void **state)
{
	struct fixture *f = *state;
	int ret = 0;

	if (f && f->priv && write_kptr_restrict((long)f->priv - 1)) {
		diag("could not restore kernel.kptr_restrict");
		ret = -1;
	}
	return fixture_teardown(state) || ret;
}

/* Upstream behaviour: an unprivileged host reader at 1 sees addresses. */
static void host_reader_at_1_sees_addresses(void **state)
{
	(void)state;
	set_host_level(1);
	assert_ret(addresses_shown(NULL, AS_NOBODY), 1);
}

/* Upstream behaviour, the control: at 2 the same reader sees zeros. */
static void host_reader_at_2_sees_zeros(void **state)
{
	(void)state;
	assert_ret(addresses_shown(NULL, AS_NOBODY), 0);
	/* CAP_SYSLOG still shows them. */
	assert_ret(addresses_shown(NULL, AS_ROOT), 1);
}

/*
 * A container following the host shows addresses to its root at 1: made
 * with the host at 2 (zeros), it follows the host down to 1.
 */
static void container_reader_at_1_sees_addresses(void **state)
{
	struct fixture *f = *state;
	struct agent *c;

	c = fixture_add(f, container_new());
	assert_ret(addresses_shown(c, AS_ROOT), 0);
	set_host_level(1);
	assert_level(c, 1);
	assert_ret(addresses_shown(c, AS_ROOT), 1);
}

/*
 * Rule 8: with the host at 1, a reader in a container raised to 2 sees
 * zeros, while an unprivileged host reader still sees the addresses.
 */
static void container_reader_at_2_sees_zeros_host_at_1_sees_addresses(
	void **state)
{
	struct fixture *f = *state;
	struct agent *c, *n;

	set_host_level(1);
	c = fixture_add(f, container_new());
	n = fixture_add(f, nested_new(c));
	set_level(c, 2);
	assert_ret(addresses_shown(c, AS_ROOT), 0);
	assert_ret(addresses_shown(c, AS_NOBODY), 0);
	assert_ret(addresses_shown(n, AS_ROOT), 0);
	assert_ret(addresses_shown(NULL, AS_NOBODY), 1);
}

#define KTEST(f) \
	cmocka_unit_test_setup_teardown(f, kallsyms_setup, kallsyms_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		KTEST(host_reader_at_1_sees_addresses),
		KTEST(host_reader_at_2_sees_zeros),
		KTEST(container_reader_at_1_sees_addresses),
		KTEST(container_reader_at_2_sees_zeros_host_at_1_sees_addresses),
	};

	return RUN_TESTS("paranoid_kallsyms", tests);
}
