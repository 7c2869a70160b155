/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf_event_paranoid ioctls of a user namespace descriptor, from
 * <linux/nsfs.h> of a kernel with the series, or defined here for building
 * against headers that predate them (Debian 12's). The one copy, for perfns
 * (tools/perfns) and the namespace agent (tools/lib) with what links it.
 *
 * NS_PERF_PARANOID_GET answers with the level in force, as the kernel
 * applies it (perf_paranoid_level(); in the initial namespace the host's
 * level up to the most it counts for); with NS_PERF_PARANOID_OWN, the level
 * written in the namespace itself (without it the namespace has none and
 * follows its parent; the initial namespace's is the host's level as
 * written); with NS_PERF_PARANOID_ANCHORED, the level the host granted it.
 * GET and GRANT take the size of the structure from the command
 * (_IOC_SIZE()), so that it can grow: NS_PERF_PARANOID_SIZE_VER0 is the
 * smallest the kernel takes, and a larger one with fields it does not know
 * set is refused (E2BIG).
 */
#ifndef PERF_PARANOID_NSFS_H
#define PERF_PARANOID_NSFS_H

#include <assert.h>
#include <sys/ioctl.h>
#include <linux/nsfs.h>
#include <linux/types.h>

#if defined(NS_PERF_PARANOID_GET) && !defined(NS_PERF_PARANOID_OWN)
#error "<linux/nsfs.h> has an earlier struct ns_perf_paranoid (no NS_PERF_PARANOID_OWN): build against headers with the current one, or without any"
#endif
#ifndef NS_PERF_PARANOID_GET
struct ns_perf_paranoid {
	__s32 level;		/* GET: the level in force; GRANT: the level */
	__s32 own;		/* with NS_PERF_PARANOID_OWN: its own level */
	__u32 flags;		/* NS_PERF_PARANOID_* */
	__s32 granted;		/* with NS_PERF_PARANOID_ANCHORED: the grant */
};

#define NS_PERF_PARANOID_ANCHORED	(1U << 0)
#define NS_PERF_PARANOID_OWN		(1U << 1)
#define NS_PERF_PARANOID_GET	_IOR(NSIO, 0x20, struct ns_perf_paranoid)
#define NS_PERF_PARANOID_GRANT	_IOW(NSIO, 0x21, struct ns_perf_paranoid)
#define NS_PERF_PARANOID_REVOKE	_IO(NSIO, 0x22)
#endif
#ifndef NS_PERF_PARANOID_SIZE_VER0
#define NS_PERF_PARANOID_SIZE_VER0	16
#endif
static_assert(sizeof(struct ns_perf_paranoid) >= NS_PERF_PARANOID_SIZE_VER0,
	      "struct ns_perf_paranoid is smaller than its first version");

#endif /* PERF_PARANOID_NSFS_H */
