// SPDX-License-Identifier: GPL-2.0
/*
 * paranoid_churn - create and destroy user namespaces, touching the level
 * of each, for selftests/kernel/kmemleak-check. Not a cmocka test.
 *
 *   paranoid_churn N
 *
 * Each of N iterations forks a process that unshares a user namespace
 * (mapping its uid as unshare -r does), raises its level through
 * user.perf_event_paranoid and reads it back, is refused a write of
 * kernel.perf_event_paranoid (EPERM: it is uid 0 on the host, past the
 * owner check), nests a second namespace and locks that at 3 (refused 2),
 * and exits. Every tenth one first sends a descriptor of its
 * user.perf_event_paranoid to this process, which closes it only after the
 * namespace is gone. Prints "paranoid_churn: N namespaces, M errors" and
 * exits non-zero on any error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "userns_agent.h"

static void __attribute__((noreturn)) child(int sock, int pass)
{
	int fd, level;

	if (unshare_mapped() || write_file(USER_PATH, "3"))
		_exit(1);
	fd = open(USER_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fd_read_int(fd, &level) || level != 3)
		_exit(2);
	if (pass && send_fd(sock, fd))
		_exit(3);
	close(fd);
	if (write_file(PARANOID_PATH, "4") != -EPERM ||
	    read_int(PARANOID_PATH, &level) || level != 3)
		_exit(5);
	if (unshare_mapped() || write_file(USER_PATH, "3") ||
	    write_file(USER_PATH, "2") != -EPERM)
		_exit(4);
	_exit(0);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i, errors = 0;
	int sv[2], status, fd, level;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return 1;
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			errors++;
			break;
		}
		if (pid == 0)
			child(sv[1], i % 10 == 0);
		fd = i % 10 == 0 ? recv_fd(sv[0], AGENT_TIMEOUT_MS) : -1;
		if (waitpid(pid, &status, 0) != pid || status) {
			if (errors++ < 5)
				fprintf(stderr, "# iteration %ld: status %#x\n",
					i, status);
		}
		/* The child is gone, its namespace lives on in the file. */
		if (i % 10 == 0 && (fd < 0 || fd_read_int(fd, &level) ||
				    level != 3)) {
			if (errors++ < 5)
				fprintf(stderr, "# iteration %ld: descriptor\n",
					i);
		}
		if (fd >= 0)
			close(fd);
	}
	printf("paranoid_churn: %ld namespaces, %ld errors\n", 2 * i, errors);
	return errors ? 1 : 0;
}
