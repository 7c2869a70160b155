// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_fuzz - the parsers of the level files, judged whole: a
 * randomized differential test against user-space models.
 *
 * Thousands of inputs of 0 to 8 KiB (digits, signs, every kind of white
 * space the kernel knows, 0x and 0 prefixes, junk bytes, values around
 * INT_MIN and INT_MAX, lengths around the page boundary) are each written
 * in one write(2) to a level file, and each outcome (the errno or the
 * length written, the level read back) is compared with what the model of
 * that file predicts. The files:
 *
 *   - user.perf_event_paranoid in a rootless container (a user namespace of
 *     uid 1000 mapped to root), kernel.perf_event_paranoid_userns, the
 *     floor, and kernel.perf_event_paranoid_grant_min on the host: the
 *     strict parser of the series, and the range each takes (-1 to 3; 1 to
 *     3 for grant_min);
 *   - kernel.perf_event_paranoid on the host: proc_dointvec(), exactly as on
 *     a kernel without the series (selftests/kernel/host-compat runs that test on
 *     the baseline kernel too);
 *   - kernel.perf_event_paranoid and the floor written from a namespace
 *     whose root is the host's root: refused (EPERM) whatever is written.
 *
 * The strict parser (the comment above perf_paranoid_write()):
 *
 *   - a write is judged whole, however long: white space, one integer in
 *     the format proc_dointvec() takes, white space, nothing else;
 *   - the integer: an optional '-', then decimal, octal (a leading 0) or
 *     hex (0x or 0X and a hex digit), at most 20 characters with the sign
 *     and the prefix, within the range of int; the white space around it is
 *     the kernel's isspace(): ' ', '\t', '\n', '\v', '\f', '\r' and 0xa0,
 *     but right after the integer, as proc_dointvec() wants, only ' ', '\t'
 *     or '\n';
 *   - anything else (an empty write too), and a value outside the file's
 *     range, is EINVAL and changes nothing;
 *   - outside the initial namespace a valid value below the level in force
 *     is EPERM and changes nothing (raise only);
 *   - an accepted write returns its whole length and the file then reads
 *     the value.
 *
 * proc_dointvec() (kernel/sysctl.c: __do_proc_dointvec(), proc_get_long(),
 * strtoul_lenient(), do_proc_dointvec_conv()) looks at the first
 * PAGE_SIZE - 1 bytes only: white space, then a value of at most 20
 * characters that must be followed by ' ', '\t', '\n' or the end of those
 * bytes; it takes the value, skips the white space after it and returns
 * the length of the write minus what is left of the window (a short write
 * when something follows); an empty write is accepted and does nothing.
 * When the kernel disagrees with a model, the report says whether the other
 * model explains it.
 *
 * SELFTESTS_SEED repeats a run (each test prints its seed);
 * SELFTESTS_FUZZ_COUNT sets the number of random inputs per test (default
 * FUZZ_COUNT, sized to keep the program well under a minute under TCG).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define INPUT_MAX	8192
#define PAGE_WINDOW	4095	/* what proc_dointvec() looks at */
#define TMPBUFLEN	22	/* proc_get_long()'s buffer */
#define CHUNK		64	/* inputs per call, and per container */
#define FUZZ_COUNT	2000
#define SHOW_MAX	8	/* mismatches shown per test */
#define CONTAINER_UID	1000

/* --- the model -------------------------------------------------------- */

/* The kernel's isspace() (lib/ctype.c): 0xa0 is white space too. */
static bool k_isspace(unsigned char c)
{
	return (c >= '\t' && c <= '\r') || c == ' ' || c == 0xa0;
}

static bool k_isdigit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int k_digit(unsigned char c)
{
	if (k_isdigit(c))
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : 99;
}

/*
 * The strict parser (the comment above perf_paranoid_write() in
 * kernel/events/paranoid.c): W* TOKEN (S W*)?, W the kernel's white space,
 * S ' ', '\t' or '\n' (proc_dointvec()'s separators), TOKEN 1 to 20 bytes:
 * an optional '-', then hex after "0x" or "0X" and a hex digit, octal after
 * a leading '0', decimal otherwise, every byte a digit of its base, the
 * magnitude within 64 bits and the value within int; all of the write,
 * however long. 0 with *@val, or -EINVAL.
 */
static int contract_parse(const unsigned char *b, size_t n, int *val)
{
	size_t s = 0, e = n, i;
	unsigned long long res = 0;
	unsigned int base = 10;
	bool neg, ovf = false;
	int d;

	while (s < e && k_isspace(b[s]))
		s++;
	while (e > s && k_isspace(b[e - 1]))
		e--;
	if (e == s || e - s > 20)
		return -EINVAL;
	if (e < n && b[e] != ' ' && b[e] != '\t' && b[e] != '\n')
		return -EINVAL;
	i = s;
	neg = b[i] == '-';
	if (neg)
		i++;
	if (i == e || !k_isdigit(b[i]))
		return -EINVAL;
	if (b[i] == '0') {
		if (i + 2 < e && (b[i + 1] | 0x20) == 'x' &&
		    k_digit(b[i + 2]) < 16) {
			base = 16;
			i += 2;
		} else {
			base = 8;
		}
	}
	for (; i < e; i++) {
		d = k_digit(b[i]);
		if (d >= (int)base)
			return -EINVAL;
		if (res > (ULLONG_MAX - d) / base)
			ovf = true;
		res = res * base + d;
	}
	if (ovf || res > (unsigned long long)INT_MAX + neg)
		return -EINVAL;
	*val = neg ? (int)-(long long)res : (int)res;
	return 0;
}

/*
 * What proc_dointvec() makes of a write of @n bytes at offset 0 to a file
 * of one int (kernel/sysctl.c, __do_proc_dointvec() and the functions it
 * calls): 0 with *@len what write(2) returns and, if @set, *@val the value
 * taken; or -EINVAL.
 */
static int dointvec_parse(const unsigned char *b, size_t n, int *val,
			  bool *set, size_t *len)
{
	size_t left = n < PAGE_WINDOW ? n : PAGE_WINDOW, got, i = 0;
	unsigned long long res = 0;
	unsigned int base = 10;
	unsigned char tmp[TMPBUFLEN], *p;
	bool neg, ovf = false;
	int d;

	*set = false;
	*len = 0;
	/* Nothing written: nothing done, and no error. */
	if (!n)
		return 0;
	/* proc_skip_spaces(), then nothing left is no value at all. */
	while (i < left && k_isspace(b[i]))
		i++;
	if (i == left)
		return -EINVAL;
	b += i;
	left -= i;

	/* proc_get_long(): a NUL-terminated copy of at most 21 bytes. */
	got = left < TMPBUFLEN - 1 ? left : TMPBUFLEN - 1;
	memcpy(tmp, b, got);
	tmp[got] = '\0';
	p = tmp;
	neg = *p == '-' && left > 1;
	if (neg)
		p++;
	if (!k_isdigit(*p))
		return -EINVAL;
	/* _parse_integer_fixup_radix() */
	if (p[0] == '0') {
		if ((p[1] | 0x20) == 'x' && k_digit(p[2]) < 16) {
			base = 16;
			p += 2;
		} else {
			base = 8;
		}
	}
	for (; (d = k_digit(*p)) < (int)base; p++) {
		if (res > (ULLONG_MAX - d) / base)
			ovf = true;
		res = res * base + d;
	}
	if (ovf)
		return -EINVAL;
	got = p - tmp;
	if (got == TMPBUFLEN - 1)
		return -EINVAL;
	if (got < left && b[got] != ' ' && b[got] != '\t' && b[got] != '\n')
		return -EINVAL;
	/* do_proc_dointvec_conv() */
	if (res > (unsigned long long)INT_MAX + neg)
		return -EINVAL;
	*val = neg ? (int)-(long long)res : (int)res;
	*set = true;
	/* The white space after it; what follows is left unwritten. */
	for (i = got; i < left && k_isspace(b[i]); i++)
		;
	*len = n - (left - i);
	return 0;
}

struct outcome {
	int err;		/* 0 or an errno */
	size_t len;		/* accepted: what write(2) returned */
	int level;		/* read back after the write */
};

/* Where a write goes, and so which rules apply. */
struct target {
	bool dointvec;		/* parsed by proc_dointvec(), else strictly */
	bool raise_only;	/* not the initial namespace */
	bool refused;		/* every write refused: EPERM */
	bool ranged;		/* takes @min to @max only, else any int */
	int min, max;
};

/* The files of the series: -1 to 3, grant_min 1 to 3. */
#define LEVELS		.ranged = true, .min = LEVEL_MIN, .max = LEVEL_MAX
#define GRANT_LEVELS	.ranged = true, .min = 1, .max = LEVEL_MAX

/*
 * What writing @b should do to a file reading @pre: EPERM for a file that
 * refuses every write; EINVAL for bad input or a value outside the file's
 * range (before anything else), EPERM for a value below @pre where only
 * raising is allowed, else the file reads the value. @other: with the other
 * parser.
 */
static struct outcome model(const unsigned char *b, size_t n, int pre,
			    const struct target *t, bool other)
{
	struct outcome o = { 0, n, pre };
	bool set = true;
	int v;

	if (t->refused) {
		o.err = EPERM;
	} else if (t->dointvec != other ? dointvec_parse(b, n, &v, &set,
							 &o.len) :
		   contract_parse(b, n, &v)) {
		o.err = EINVAL;
	} else if (set && t->ranged && (v < t->min || v > t->max)) {
		o.err = EINVAL;
	} else if (set && t->raise_only && v < pre) {
		o.err = EPERM;
	} else if (set) {
		o.level = v;
	}
	return o;
}

/* --- inputs ----------------------------------------------------------- */

struct input {
	unsigned int len;
	unsigned char kind;
	unsigned char b[INPUT_MAX];
};

enum kind {
	K_FIXED, K_VALUE, K_MUTATED, K_TWO, K_BYTES, K_LONG, K_KINDS
};

static const char *const kind_name[K_KINDS] = {
	"fixed", "value", "mutated", "two values", "random bytes",
	"long",
};

static unsigned long long rand64(void)
{
	return (unsigned long long)rand_below(1U << 31) << 33 ^
	       (unsigned long long)rand_below(1U << 31) << 2 ^ rand_below(4);
}

static bool chance(unsigned int percent)
{
	return rand_below(100) < percent;
}

static void put(struct input *in, const void *s, size_t n)
{
	if (n > INPUT_MAX - in->len)
		n = INPUT_MAX - in->len;
	memcpy(in->b + in->len, s, n);
	in->len += n;
}

static void putc_(struct input *in, unsigned char c)
{
	put(in, &c, 1);
}

static void puts_(struct input *in, const char *s)
{
	put(in, s, strlen(s));
}

/* White space and what only looks like it: NUL, NEL, the separators. */
static const unsigned char spaces[] = { ' ', '\t', '\n', '\v', '\f', '\r',
					0xa0 };
static const unsigned char junk[] = {
	'0', '1', '7', '8', '9', '-', '+', 'x', 'X', 'a', 'f', 'g', 'A', 'F',
	'G', '.', ',', '_', '#', ' ', '\t', '\n', '\v', '\f', '\r', 0xa0,
	'\0', 0x85, 0x1c, 0x1f, 0x7f, 0xc2, 0xff,
};

static unsigned char rand_space(void)
{
	/* Mostly the three proc_dointvec() takes after a value. */
	return spaces[chance(60) ? rand_below(3) : rand_below(sizeof(spaces))];
}

/* @n white space bytes: one kind, or a pattern of 2 to 4 kinds. */
static void put_spaces(struct input *in, unsigned int n, bool mixed)
{
	unsigned char pat[4];
	unsigned int i, period = mixed ? 2 + rand_below(3) : 1;

	for (i = 0; i < period; i++)
		pat[i] = rand_space();
	for (i = 0; i < n; i++)
		putc_(in, pat[i % period]);
}

/* Up to three white space bytes of any kind, often none. */
static void put_few_spaces(struct input *in)
{
	unsigned int n = chance(50) ? 0 : 1 + rand_below(3);

	while (n--)
		putc_(in, rand_space());
}

/* Magnitudes beyond 64 bits, as text. */
static const char *const huge[] = {
	"18446744073709551616", "18446744073709551617",
	"99999999999999999999", "36893488147419103232",
	"0x10000000000000000", "02000000000000000000000",
	"340282366920938463463374607431768211456",
};

/*
 * A number: a sign (or a wrong one), then a magnitude in decimal, octal or
 * hex, with leading zeros sometimes. Values near @hint when @use_hint.
 */
static void put_number(struct input *in, int hint, bool use_hint)
{
	static const long long edges[] = {
		INT_MAX, INT_MAX - 1LL, INT_MAX + 1LL, INT_MAX + 2LL,
		INT_MIN, INT_MIN + 1LL, INT_MIN - 1LL, INT_MIN - 2LL,
		UINT_MAX, UINT_MAX + 1LL, -(long long)UINT_MAX, LLONG_MAX,
		LLONG_MIN + 1, 0, -1, 1, 2, 3, 4,
	};
	unsigned long long m;
	long long v;
	bool neg = false;
	char s[96];
	int zeros = 0, r = rand_below(100);

	if (use_hint && r < 40) {
		v = (long long)hint - 2 + rand_below(6);
	} else if (r < 60) {
		v = (long long)rand_below(12) - 2;
	} else if (r < 80) {
		v = edges[rand_below(ARRAY_SIZE(edges))];
	} else if (r < 88) {
		v = (int)rand64();
	} else if (r < 95) {
		/* Any 64-bit magnitude, with either sign. */
		m = rand64() >> rand_below(64);
		neg = chance(50);
		goto format;
	} else {
		if (chance(50))
			putc_(in, '-');
		puts_(in, huge[rand_below(ARRAY_SIZE(huge))]);
		return;
	}
	neg = v < 0;
	m = neg ? -(unsigned long long)v : (unsigned long long)v;
format:
	r = rand_below(100);
	if (r < 3)
		puts_(in, "+");
	else if (r < 5)
		puts_(in, "--");
	else if (r < 6)
		puts_(in, "- ");
	else if (neg || r < 8)
		puts_(in, "-");
	if (chance(12))
		zeros = 1 + rand_below(chance(50) ? 3 : 22);
	while (zeros--)
		putc_(in, '0');
	r = rand_below(100);
	if (r < 60)
		snprintf(s, sizeof(s), "%llu", m);
	else if (r < 75)
		snprintf(s, sizeof(s), "0x%llx", m);
	else if (r < 85)
		snprintf(s, sizeof(s), "0X%llX", m);
	else if (r < 95)
		snprintf(s, sizeof(s), "0%llo", m);
	else
		snprintf(s, sizeof(s), "0x%s", chance(50) ? "" : "g1");
	puts_(in, s);
}

static void mutate(struct input *in)
{
	unsigned int at, n = 1 + rand_below(3);

	while (n--) {
		at = rand_below(in->len + 1);
		switch (rand_below(4)) {
		case 0:		/* insert */
			if (in->len == INPUT_MAX)
				break;
			memmove(in->b + at + 1, in->b + at, in->len - at);
			in->b[at] = junk[rand_below(sizeof(junk))];
			in->len++;
			break;
		case 1:		/* replace */
			if (at < in->len)
				in->b[at] = junk[rand_below(sizeof(junk))];
			break;
		case 2:		/* delete */
			if (at < in->len) {
				memmove(in->b + at, in->b + at + 1,
					in->len - at - 1);
				in->len--;
			}
			break;
		default:	/* cut */
			in->len = at;
			break;
		}
	}
}

/* A length around a page boundary, or anything up to 8 KiB. */
static unsigned int long_length(void)
{
	unsigned int r = rand_below(100);

	if (r < 45)
		return PAGE_WINDOW - 3 + rand_below(7);	/* 4092..4098 */
	if (r < 60)
		return INPUT_MAX - 3 + rand_below(4);	/* 8189..8192 */
	if (r < 70)
		return 2 * PAGE_WINDOW - 2 + rand_below(6);
	return 22 + rand_below(INPUT_MAX - 21);
}

/* Fill with white space up to @to bytes (one kind, or mixed). */
static void fill_to(struct input *in, unsigned int to, bool mixed)
{
	if (in->len < to)
		put_spaces(in, to - in->len, mixed);
}

/*
 * The layouts that matter for a parser looking at a window: the value at
 * the start, at the end, across the window's edge, junk or a second value
 * on either side of the edge.
 */
static void gen_long(struct input *in, int hint, bool use_hint)
{
	unsigned int to = long_length(), at, i;
	bool mixed = chance(30);
	struct input tok = { 0 };
	unsigned char c;

	put_number(&tok, hint, use_hint);
	switch (rand_below(7)) {
	case 0:		/* value, then white space */
		put(in, tok.b, tok.len);
		fill_to(in, to, mixed);
		break;
	case 1:		/* white space, then the value at the end */
		fill_to(in, to > tok.len ? to - tok.len : 0, mixed);
		put(in, tok.b, tok.len);
		break;
	case 2:		/* the value across the window's edge */
		at = rand_below(tok.len + 1);
		fill_to(in, PAGE_WINDOW > at ? PAGE_WINDOW - at : 0, mixed);
		put(in, tok.b, tok.len);
		fill_to(in, to, mixed);
		break;
	case 3:		/* value, white space, one junk byte somewhere */
	case 4:
		put(in, tok.b, tok.len);
		fill_to(in, to, mixed);
		at = chance(60) && to > PAGE_WINDOW ?
			PAGE_WINDOW + rand_below(to - PAGE_WINDOW) :
			rand_below(to);
		if (chance(30) && to > PAGE_WINDOW)
			at = PAGE_WINDOW + rand_below(2);
		c = junk[rand_below(sizeof(junk))];
		if (at < in->len)
			in->b[at] = c;
		break;
	case 5:		/* a value, then a second one after the edge */
		put(in, tok.b, tok.len);
		fill_to(in, PAGE_WINDOW + rand_below(3), mixed);
		put_number(in, hint, use_hint);
		fill_to(in, to, mixed);
		break;
	default:	/* value, white space, then anything after the edge */
		put(in, tok.b, tok.len);
		fill_to(in, to < PAGE_WINDOW ? to : PAGE_WINDOW, mixed);
		c = junk[rand_below(sizeof(junk))];
		for (i = in->len; i < to; i++)
			putc_(in, chance(90) ? c : rand_below(256));
		break;
	}
}

/* A random input; @hint: the level the file should read before it. */
static void gen_input(struct input *in, int hint, bool use_hint)
{
	unsigned int r = rand_below(100), n;

	in->len = 0;
	if (r < 25) {
		in->kind = K_VALUE;
		put_few_spaces(in);
		put_number(in, hint, use_hint);
		put_few_spaces(in);
	} else if (r < 45) {
		in->kind = K_MUTATED;
		put_few_spaces(in);
		put_number(in, hint, use_hint);
		put_few_spaces(in);
		mutate(in);
	} else if (r < 50) {
		in->kind = K_TWO;
		put_few_spaces(in);
		put_number(in, hint, use_hint);
		putc_(in, chance(80) ? rand_space() :
		      junk[rand_below(sizeof(junk))]);
		put_few_spaces(in);
		put_number(in, hint, use_hint);
		put_few_spaces(in);
	} else if (r < 60) {
		in->kind = K_BYTES;
		n = rand_below(chance(80) ? 8 : 40);
		while (n--)
			putc_(in, chance(70) ? junk[rand_below(sizeof(junk))] :
			      rand_below(256));
	} else {
		in->kind = K_LONG;
		gen_long(in, hint, use_hint);
	}
}

/*
 * Fixed inputs, run first by every test, with what a parser makes of each
 * on the host; the models must agree before the kernel is asked.
 */
struct fixed {
	const char *s;
	unsigned int len;	/* 0: strlen(s) */
	int pad_before;		/* this many of pad_char before s */
	int pad_after;		/* and after, then tail */
	char pad_char;
	const char *tail;
	int err;
	int val;
	bool nothing;		/* accepted, nothing set */
	unsigned int short_by;	/* accepted, this many bytes not written */
};

/* What the strict parser makes of them. */
static const struct fixed fixed[] = {
	{ "", .err = EINVAL },
	{ "\n", .err = EINVAL },
	{ " \t\v\f\r", .err = EINVAL },
	{ "2", .val = 2 },
	{ "3\n", .val = 3 },
	{ " \t4\n", .val = 4 },
	{ "\v\f\r 5 \n\n", .val = 5 },
	{ "+2", .err = EINVAL },
	{ "-0", .val = 0 },
	{ "-", .err = EINVAL },
	{ "-\n", .err = EINVAL },
	{ "--1", .err = EINVAL },
	{ "- 1", .err = EINVAL },
	{ "0x10", .val = 16 },
	{ "0X1f\n", .val = 31 },
	{ "-0x10", .val = -16 },
	{ "0x", .err = EINVAL },
	{ "0xg", .err = EINVAL },
	{ "010", .val = 8 },
	{ "08", .err = EINVAL },
	{ "1 2", .err = EINVAL },
	{ "1\n2", .err = EINVAL },
	{ "1,", .err = EINVAL },
	/* Right after the value ' ', \t or \n, then any white space. */
	{ "1\v", .err = EINVAL },
	{ "3\r\n", .err = EINVAL },
	{ "1 \v\xa0", .val = 1 },
	{ "1\t\r", .val = 1 },
	{ "\xa0" "3", .val = 3 },
	{ "\v\f\r\xa0" "3\n\v", .val = 3 },
	{ "3\xa0", .err = EINVAL },
	{ "3\x85", .err = EINVAL },
	{ "3\0", 2, .err = EINVAL },
	{ "4\0x", 3, .err = EINVAL },
	{ "3abc", .err = EINVAL },
	{ "\0" "3", 2, .err = EINVAL },
	{ "2147483647", .val = INT_MAX },
	{ "2147483648", .err = EINVAL },
	{ "-2147483648", .val = INT_MIN },
	{ "-2147483649", .err = EINVAL },
	{ "0x7fffffff", .val = INT_MAX },
	{ "0x80000000", .err = EINVAL },
	{ "-0x80000000", .val = INT_MIN },
	{ "017777777777", .val = INT_MAX },
	{ "020000000000", .err = EINVAL },
	{ "4294967298", .err = EINVAL },
	{ "18446744073709551615", .err = EINVAL },
	{ "18446744073709551616", .err = EINVAL },
	/* At most 20 characters: sign, prefix and leading zeros count. */
	{ "00000000000000000003", .val = 3 },
	{ "000000000000000000003", .err = EINVAL },
	{ "-0000000000000000003", .val = -3 },
	{ "-00000000000000000003", .err = EINVAL },
	{ "0x000000000000000007", .val = 7 },
	/* Around the page: all of a write counts. */
	{ "3", .pad_after = 4094, .pad_char = ' ', .val = 3 },
	{ "3", .pad_after = 4095, .pad_char = ' ', .val = 3 },
	{ "3", .pad_after = 4093, .pad_char = ' ', .tail = "x",
	  .err = EINVAL },
	{ "3", .pad_after = 4094, .pad_char = ' ', .tail = "x",
	  .err = EINVAL },
	{ "3", .pad_after = 4095, .pad_char = '\n', .tail = "\0",
	  .err = EINVAL },
	{ "3", .pad_after = 8190, .pad_char = '\t', .tail = "4",
	  .err = EINVAL },
	{ "3", .pad_after = 8191, .pad_char = '\t', .val = 3 },
	{ "3", .pad_before = 4094, .pad_char = ' ', .val = 3 },
	{ "3", .pad_before = 4095, .pad_char = ' ', .val = 3 },
	{ "34", .pad_before = 4094, .pad_char = ' ', .val = 34 },
	{ "3 4", .pad_before = 4093, .pad_char = ' ', .err = EINVAL },
	{ "5", .pad_before = 8191, .pad_char = '\n', .val = 5 },
};

/*
 * What proc_dointvec() makes of them: the host's kernel.perf_event_paranoid,
 * as on a kernel without the series.
 */
static const struct fixed dointvec_fixed[] = {
	{ "", .nothing = true },
	{ "\n", .err = EINVAL },
	{ " \t\v\f\r", .err = EINVAL },
	{ "-", .err = EINVAL },
	{ "-\n", .err = EINVAL },
	{ "+2", .err = EINVAL },
	{ "-0", .val = 0 },
	{ "08", .err = EINVAL },
	{ "0x10", .val = 16 },
	{ "3abc", .err = EINVAL },
	{ "3-", .err = EINVAL },
	/* The first value taken, the rest left unwritten. */
	{ "3 4", .val = 3, .short_by = 1 },
	{ "3\n4\n", .val = 3, .short_by = 2 },
	{ "1 2 3", .val = 1, .short_by = 3 },
	{ "4 x", .val = 4, .short_by = 1 },
	{ "  5\t6", .val = 5, .short_by = 1 },
	/* Right after the value only ' ', \t or \n, then any white space. */
	{ "1\v", .err = EINVAL },
	{ "3\r\n", .err = EINVAL },
	{ "3\xa0", .err = EINVAL },
	{ "3 \v\xa0", .val = 3 },
	{ "\xa0" "3", .val = 3 },
	{ "3\0", 2, .err = EINVAL },
	{ "00000000000000000003", .val = 3 },
	{ "000000000000000000003", .err = EINVAL },
	{ "-00000000000000000003", .err = EINVAL },
	{ "-2147483648", .val = INT_MIN },
	{ "2147483648", .err = EINVAL },
	/* Only the first 4095 bytes are looked at. */
	{ "3", .pad_after = 4093, .pad_char = ' ', .tail = "x", .val = 3,
	  .short_by = 1 },
	{ "3", .pad_after = 4094, .pad_char = ' ', .tail = "x", .val = 3 },
	{ "3", .pad_after = 8190, .pad_char = '\t', .tail = "4", .val = 3 },
	{ "3", .pad_before = 4095, .pad_char = ' ', .err = EINVAL },
	{ "34", .pad_before = 4094, .pad_char = ' ', .val = 3 },
	{ "3 4", .pad_before = 4093, .pad_char = ' ', .val = 3 },
	{ "5", .pad_before = 8191, .pad_char = '\n', .err = EINVAL },
};

#define NFIXED	(ARRAY_SIZE(fixed) + ARRAY_SIZE(dointvec_fixed))

/* The fixed inputs of both tables, numbered from 0 to NFIXED - 1. */
static const struct fixed *fixed_case(unsigned int i)
{
	return i < ARRAY_SIZE(fixed) ? &fixed[i] :
	       &dointvec_fixed[i - ARRAY_SIZE(fixed)];
}

static void fixed_input(const struct fixed *f, struct input *in)
{
	in->len = 0;
	in->kind = K_FIXED;
	memset(in->b, f->pad_char, f->pad_before);
	in->len = f->pad_before;
	put(in, f->s, f->len ? f->len : strlen(f->s));
	memset(in->b + in->len, f->pad_char, f->pad_after);
	in->len += f->pad_after;
	if (f->tail)
		put(in, f->tail, strlen(f->tail) ? strlen(f->tail) : 1);
}

/* --- showing an input ------------------------------------------------- */

static void escape_byte(unsigned char b, char *c, size_t size)
{
	static const char ctl[] = "\t\n\v\f\r";
	const char *e = b ? strchr(ctl, b) : NULL;

	if (b == '\\' || b == '"')
		snprintf(c, size, "\\%c", b);
	else if (b >= ' ' && b < 0x7f)
		snprintf(c, size, "%c", b);
	else if (e)
		snprintf(c, size, "\\%c", "tnvfr"[e - ctl]);
	else
		snprintf(c, size, "\\x%02x", b);
}

/* How many bytes from @i repeat the pattern of @period bytes at @i. */
static size_t run_length(const struct input *in, size_t i, size_t period)
{
	size_t n = period;

	while (i + n < in->len && in->b[i + n] == in->b[i + n - period])
		n++;
	return n - n % period;
}

/*
 * @in escaped as C strings, runs of a pattern of 1 to 4 bytes repeated to
 * 8 bytes or more as <N x "pattern">.
 */
static void escape(const struct input *in, char *out, size_t size)
{
	size_t o = 0, i = 0, run, period, p, k;
	bool quoted = false, hex = false;
	char c[8], pat[40];

#define EMIT(...) (o += snprintf(out + o, o < size ? size - o : 0, \
				 __VA_ARGS__))
	while (i < in->len && o + 60 < size) {
		for (period = 1, run = 0; period <= 4; period++) {
			run = i + period <= in->len ?
				run_length(in, i, period) : 0;
			if (run >= 8 && run >= 3 * period)
				break;
		}
		if (period <= 4) {
			for (p = 0, k = 0; k < period; k++) {
				escape_byte(in->b[i + k], c, sizeof(c));
				p += snprintf(pat + p, sizeof(pat) - p, "%s",
					      c);
			}
			EMIT("%s<%zu x \"%s\">", quoted ? "\" " : o ? " " : "",
			     run, pat);
			quoted = false;
			i += run;
			continue;
		}
		escape_byte(in->b[i], c, sizeof(c));
		/* "\xa0" "3", not "\xa03" */
		if (quoted && hex && isxdigit(in->b[i]))
			EMIT("\" \"");
		EMIT("%s%s", quoted ? "" : o ? " \"" : "\"", c);
		hex = c[1] == 'x';
		quoted = true;
		i++;
	}
	if (quoted)
		EMIT("\"");
	if (i < in->len)
		EMIT(" ... (%zu more bytes)", in->len - i);
	if (!in->len)
		EMIT("\"\" (nothing)");
#undef EMIT
}

static const char *outcome_str(struct outcome o, char *buf, size_t size)
{
	if (o.err)
		snprintf(buf, size, "%s, level %d", strerrorname_np(o.err),
			 o.level);
	else
		snprintf(buf, size, "accepted (%zu bytes written), level %d",
			 o.len, o.level);
	return buf;
}

/* --- running a batch in the kernel ------------------------------------ */

struct result {
	int pre_ok, pre;	/* the level read before the write */
	int open_err;		/* open(2) for the write: 0 or -errno */
	long ret;		/* write(2): the length written or -errno */
	int post_ok, post;	/* and after it */
};

struct batch {
	char path[64];
	unsigned int n;
	struct result res[CHUNK];
	struct input in[CHUNK];
};

/*
 * In a call: each input of the batch mapped from @in_fd in one write(2) on
 * a fresh open, the level read before and after through one descriptor.
 */
static int fn_batch(const void *arg, int in_fd, struct out *out)
{
	struct batch *bt;
	struct result *r;
	unsigned int i;
	int rfd, wfd;
	ssize_t n;

	(void)arg;
	bt = mmap(NULL, sizeof(*bt), PROT_READ | PROT_WRITE, MAP_SHARED,
		  in_fd, 0);
	if (bt == MAP_FAILED) {
		snprintf(out->msg, sizeof(out->msg), "mmap: %m");
		return -ENOTRECOVERABLE;
	}
	rfd = open(bt->path, O_RDONLY | O_CLOEXEC);
	if (rfd < 0) {
		snprintf(out->msg, sizeof(out->msg), "open %s: %m", bt->path);
		munmap(bt, sizeof(*bt));
		return -ENOTRECOVERABLE;
	}
	for (i = 0; i < bt->n; i++) {
		r = &bt->res[i];
		if (i) {
			r->pre_ok = r[-1].post_ok;
			r->pre = r[-1].post;
		} else {
			r->pre_ok = fd_read_int(rfd, &r->pre);
		}
		wfd = open(bt->path, O_WRONLY | O_CLOEXEC);
		r->open_err = wfd < 0 ? -errno : 0;
		r->ret = 0;
		if (wfd >= 0) {
			n = write(wfd, bt->in[i].b, bt->in[i].len);
			r->ret = n < 0 ? -errno : n;
			close(wfd);
		}
		r->post_ok = fd_read_int(rfd, &r->post);
	}
	close(rfd);
	munmap(bt, sizeof(*bt));
	return 0;
}

/* --- the tests -------------------------------------------------------- */

struct run {
	const char *what;
	struct target t;
	struct batch *bt;
	int memfd;
	unsigned int cases, mismatches, long_cases;
	unsigned int as_other;		/* mismatches the other model has */
	unsigned int long_mismatches;	/* of writes longer than 4095 bytes */
	unsigned int by_err[3];		/* accepted, EINVAL, EPERM */
	unsigned int by_kind[K_KINDS];
};

static void run_init(struct run *r, const char *what, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->what = what;
	r->memfd = memfd_create("paranoid_fuzz", MFD_CLOEXEC);
	assert_true(r->memfd >= 0);
	assert_int_equal(ftruncate(r->memfd, sizeof(*r->bt)), 0);
	r->bt = mmap(NULL, sizeof(*r->bt), PROT_READ | PROT_WRITE, MAP_SHARED,
		     r->memfd, 0);
	assert_true(r->bt != MAP_FAILED);
	snprintf(r->bt->path, sizeof(r->bt->path), "%s", path);
}

static void run_done(struct run *r)
{
	munmap(r->bt, sizeof(*r->bt));
	close(r->memfd);
}

static bool same(struct outcome a, struct outcome b)
{
	return a.err == b.err && a.level == b.level &&
	       (a.err || a.len == b.len);
}

/* Compare one result with the model; show the first few that differ. */
static void judge(struct run *r, unsigned int i)
{
	const struct input *in = &r->bt->in[i];
	const struct result *res = &r->bt->res[i];
	struct outcome want, got, other;
	char text[800], a[80], b[80];

	r->cases++;
	r->by_kind[in->kind]++;
	r->long_cases += in->len > PAGE_WINDOW;
	if (res->pre_ok || res->post_ok) {
		diag("%s case %u: reading the file: %s", r->what, r->cases,
		     strerror(-(res->pre_ok ?: res->post_ok)));
		r->mismatches++;
		return;
	}
	if (res->open_err) {
		diag("%s case %u: opening the file for writing: %s", r->what,
		     r->cases, strerror(-res->open_err));
		r->mismatches++;
		return;
	}
	want = model(in->b, in->len, res->pre, &r->t, false);
	r->by_err[want.err == EINVAL ? 1 : want.err == EPERM ? 2 : 0]++;
	got.err = res->ret >= 0 ? 0 : -res->ret;
	got.len = res->ret >= 0 ? res->ret : 0;
	got.level = res->post;
	if (same(got, want))
		return;
	other = model(in->b, in->len, res->pre, &r->t, true);
	r->as_other += same(other, got);
	r->long_mismatches += in->len > PAGE_WINDOW;
	if (r->mismatches++ >= SHOW_MAX)
		return;
	escape(in, text, sizeof(text));
	diag("%s case %u (%s, %u bytes), reading %d before: %s", r->what,
	     r->cases, kind_name[in->kind], in->len, res->pre, text);
	if (got.err < 0)
		diag("  kernel: write returned %s for %u bytes, reads %d",
		     ret_str(res->ret), in->len, res->post);
	else
		diag("  kernel: %s", outcome_str(got, a, sizeof(a)));
	diag("  model:  %s", outcome_str(want, b, sizeof(b)));
	if (!r->t.refused && same(other, got))
		diag("  (as %s would)", r->t.dointvec ? "the strict parser" :
		     in->len > PAGE_WINDOW ? "proc_dointvec(), which looks "
		     "at the first 4095 bytes only," : "proc_dointvec()");
}

/* Run the filled batch in @a (NULL: on the host) and judge it. */
static void run_batch(struct run *r, struct agent *a)
{
	struct out out;
	unsigned int i;

	assert_ret(call_as(a, AS_ROOT, fn_batch, NULL, 0, r->memfd, &out), 0);
	for (i = 0; i < r->bt->n; i++)
		judge(r, i);
}

static unsigned int fuzz_count(void)
{
	const char *s = getenv("SELFTESTS_FUZZ_COUNT");

	return s ? strtoul(s, NULL, 0) : FUZZ_COUNT;
}

static int by_value(const void *a, const void *b)
{
	const struct fixed *x = fixed_case(*(const unsigned int *)a);
	const struct fixed *y = fixed_case(*(const unsigned int *)b);
	long long vx = x->err ? LLONG_MIN : x->val;
	long long vy = y->err ? LLONG_MIN : y->val;

	return vx < vy ? -1 : vx > vy;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* Where the writes are made. */
enum where {
	ON_HOST,		/* as the host's root */
	IN_CONTAINER,		/* a fresh namespace of uid 1000 per batch */
	IN_ROOT_MAPPED,		/* a namespace whose root is the host's */
};

/*
 * The fixed inputs, then the random ones, to @path in batches of CHUNK; in
 * a container each batch gets a fresh namespace at the host's level, so
 * that raising does not soon leave nothing but EPERM.
 */
static void fuzz(struct fixture *f, const char *what, const char *path,
		 enum where where, struct target t)
{
	unsigned int total, i, k, order[NFIXED];
	uint64_t t0 = now_ms();
	const char *other;
	struct agent *c = NULL;
	struct outcome o;
	struct run r;
	/* What the file reads on the host, and so in a namespace too. */
	int first = path_read_level(path), hint = first;

	/*
	 * Raising only, a container takes the fixed values in ascending
	 * order (bad input first), so that INT_MAX does not come early and
	 * make the rest EPERM.
	 */
	for (i = 0; i < NFIXED; i++)
		order[i] = i;
	if (where == IN_CONTAINER)
		qsort(order, NFIXED, sizeof(order[0]), by_value);
	run_init(&r, what, path);
	r.t = t;
	if (where == IN_ROOT_MAPPED)
		c = fixture_add(f, agent_userns(NULL, 0, 1));
	rand_init();
	total = NFIXED + fuzz_count();
	for (i = 0; i < total; i += r.bt->n) {
		if (where == IN_CONTAINER) {
			c = fixture_add(f, agent_userns(NULL, CONTAINER_UID,
							1));
			hint = HOST_LEVEL;
		}
		for (k = 0; k < CHUNK && i + k < total; k++) {
			struct input *in = &r.bt->in[k];

			if (i + k < NFIXED)
				fixed_input(fixed_case(order[i + k]), in);
			else
				gen_input(in, hint, true);
			/* What the next input will most likely meet. */
			o = model(in->b, in->len, hint, &r.t, false);
			hint = o.level;
		}
		r.bt->n = k;
		run_batch(&r, c);
		if (where == IN_CONTAINER) {
			/* A new namespace reads the host's level, 2. */
			assert_ret(r.bt->res[0].pre, HOST_LEVEL);
		} else if (where == IN_ROOT_MAPPED) {
			/* What the host read, and nothing changed it. */
			assert_ret(r.bt->res[0].pre, first);
		}
		if (where == IN_CONTAINER) {
			agent_free(c);
			f->n--;
		}
		if (!r.bt->res[k - 1].post_ok)
			hint = r.bt->res[k - 1].post;
	}
	diag("%s: %u inputs in %.1f s (%u longer than %d bytes): %u "
	     "accepted, %u EINVAL, %u EPERM; by kind: %u fixed, %u value, "
	     "%u mutated, %u two, %u bytes, %u long", what, r.cases,
	     (now_ms() - t0) / 1000.0, r.long_cases, PAGE_WINDOW,
	     r.by_err[0], r.by_err[1], r.by_err[2], r.by_kind[K_FIXED],
	     r.by_kind[K_VALUE], r.by_kind[K_MUTATED], r.by_kind[K_TWO],
	     r.by_kind[K_BYTES], r.by_kind[K_LONG]);
	run_done(&r);
	if (r.mismatches) {
		other = t.dointvec ? "the strict parser" : "proc_dointvec()";
		diag("%s: %u of %u outcomes differ from the model (%u of "
		     "them writes longer than %d bytes), %u as %s would "
		     "have it", what, r.mismatches, r.cases,
		     r.long_mismatches, PAGE_WINDOW, r.as_other, other);
		fail();
	}
	assert_int_equal(r.cases, total);
	if (t.refused) {
		assert_int_equal(r.by_err[2], r.cases);
		return;
	}
	/* A generator that stopped producing an outcome tests less. */
	assert_true(r.by_err[0] > 0 && r.by_err[1] > 0);
	assert_true(!t.raise_only || r.by_err[2] > 0);
}

/* Check the fixed cases of @table against @t's model; the mismatches. */
static unsigned int check_fixed(const char *name, const struct fixed *table,
				unsigned int n, const struct target *t,
				struct input *in)
{
	unsigned int i, bad = 0;
	char text[800], a[80];
	struct outcome o;
	size_t len;

	for (i = 0; i < n; i++) {
		fixed_input(&table[i], in);
		o = model(in->b, in->len, HOST_LEVEL, t, false);
		len = in->len - table[i].short_by;
		if (o.err == table[i].err &&
		    (o.err || (o.len == len &&
			       o.level == (table[i].nothing ? HOST_LEVEL :
					   table[i].val))))
			continue;
		escape(in, text, sizeof(text));
		diag("%s case %u %s: the model says %s", name, i, text,
		     outcome_str(o, a, sizeof(a)));
		bad++;
	}
	return bad;
}

/* Each model agrees with what its parser makes of the fixed inputs. */
static void models_agree_with_the_fixed_cases(void **state)
{
	static const struct target strict = { 0 };
	static const struct target dointvec = { .dointvec = true };
	struct input *in = malloc(sizeof(*in));
	unsigned int bad;

	(void)state;
	assert_non_null(in);
	bad = check_fixed("strict", fixed, ARRAY_SIZE(fixed), &strict, in);
	bad += check_fixed("proc_dointvec", dointvec_fixed,
			   ARRAY_SIZE(dointvec_fixed), &dointvec, in);
	free(in);
	assert_int_equal(bad, 0);
}

/*
 * The host's kernel.perf_event_paranoid: proc_dointvec(), as on a kernel
 * without the series.
 */
static void host_level_writes_match_proc_dointvec(void **state)
{
	fuzz(*state, "host level", PARANOID_PATH, ON_HOST,
	     (struct target){ .dointvec = true });
}

/*
 * user.perf_event_paranoid in a rootless container (uid 1000 mapped to
 * root): the strict parser, -1 to 3, raise only (a value below the level in
 * force is EPERM, one outside -1 to 3 EINVAL).
 */
static void container_level_writes_match_the_model(void **state)
{
	fuzz(*state, "container level", USER_PATH, IN_CONTAINER,
	     (struct target){ .raise_only = true, LEVELS });
}

/*
 * The host's floor, kernel.perf_event_paranoid_userns: the strict parser,
 * -1 to 3, lower or higher; the file reads what was written.
 */
static void floor_writes_match_the_model(void **state)
{
	fuzz(*state, "host floor", FLOOR_PATH, ON_HOST,
	     (struct target){ LEVELS });
}

/*
 * kernel.perf_event_paranoid_grant_min: the strict parser, 1 to 3; the
 * file reads what was written.
 */
static void grant_min_writes_match_the_model(void **state)
{
	fuzz(*state, "grant_min", GRANT_MIN_PATH, ON_HOST,
	     (struct target){ GRANT_LEVELS });
}

/*
 * From a namespace whose root is the host's root (past the files' owner
 * check), kernel.perf_event_paranoid and the floor refuse every write with
 * EPERM, before looking at it, and nothing changes.
 */
static void namespace_kernel_level_writes_are_refused(void **state)
{
	fuzz(*state, "kernel level in a namespace", PARANOID_PATH,
	     IN_ROOT_MAPPED, (struct target){ .refused = true });
	assert_ret(host_level(), HOST_LEVEL);
}

static void namespace_floor_writes_are_refused(void **state)
{
	fuzz(*state, "floor in a namespace", FLOOR_PATH, IN_ROOT_MAPPED,
	     (struct target){ .refused = true });
	assert_ret(path_read_level(FLOOR_PATH), NO_FLOOR);
}

/*
 * Back to no floor (-1, the boot value) and grant_min 2 after a test of
 * the host's files.
 */
static int host_files_teardown(void **state)
{
	int ret = clear_host_floor();

	if (ret)
		diag("restoring the host's floor: %s", ret_str(ret));
	if (!ret) {
		ret = write_int(GRANT_MIN_PATH, GRANT_MIN);
		if (ret)
			diag("restoring grant_min: %s", ret_str(ret));
	}
	return fixture_teardown(state) || ret ? -1 : 0;
}

#define FLOOR_TEST(f) \
	cmocka_unit_test_setup_teardown(f, fixture_setup, host_files_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(models_agree_with_the_fixed_cases),
		TEST(host_level_writes_match_proc_dointvec),
		TEST(container_level_writes_match_the_model),
		FLOOR_TEST(floor_writes_match_the_model),
		FLOOR_TEST(grant_min_writes_match_the_model),
		TEST(namespace_kernel_level_writes_are_refused),
		FLOOR_TEST(namespace_floor_writes_are_refused),
	};

	return RUN_TESTS("paranoid_fuzz", tests);
}
