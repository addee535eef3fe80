/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_procfile.c - kept-open files re-read from offset 0: paths under a
 * root, whole-file reads, EFBIG, and seq_file files that arrive in pieces.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/collect.h"
#include "tap.h"

static char dir[] = "/tmp/cm-procfile-XXXXXX";
static char path[512];

static void rewrite(const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		perror(path);
	close(fd);
}

static void paths(void)
{
	struct procfile pf;
	char root[512], longroot[300];

	ok(procfile_open(&pf, dir, "proc/x") == 0, "opens ROOT/proc/x");
	procfile_close(&pf);
	snprintf(root, sizeof(root), "%s/", dir);
	ok(procfile_open(&pf, root, "/proc/x") == 0 && strcmp(pf.path, path) == 0,
	   "slashes on both sides are not doubled (%s)", pf.path);
	procfile_close(&pf);
	ok(procfile_open(&pf, "", "proc/self/stat") == 0 && strcmp(pf.path, "/proc/self/stat") == 0,
	   "root \"\" is the live system");
	procfile_close(&pf);
	ok(procfile_open(&pf, "/", "proc/self/stat") == 0 &&
	   strcmp(pf.path, "/proc/self/stat") == 0,
	   "root \"/\" is the live system too");
	ok((fcntl(pf.fd, F_GETFD) & FD_CLOEXEC) != 0, "opened close-on-exec");
	procfile_close(&pf);
	ok(procfile_open(&pf, dir, "proc/missing") == -1 && pf.fd == -1 && errno == ENOENT,
	   "a missing file fails with ENOENT and leaves fd -1");
	memset(longroot, 'a', sizeof(longroot) - 1);
	longroot[sizeof(longroot) - 1] = '\0';
	ok(procfile_open(&pf, longroot, "proc/stat") == -1 && pf.fd == -1 && errno == ENAMETOOLONG,
	   "a path longer than struct procfile holds: ENAMETOOLONG, not a cut path");
}

static void reads(void)
{
	struct procfile pf;
	char buf[16];

	rewrite("hello\n");
	procfile_open(&pf, dir, "proc/x");
	ok(procfile_read(&pf, buf, sizeof(buf)) == 6 && strcmp(buf, "hello\n") == 0,
	   "reads it whole");
	rewrite("again, longer\n");
	ok(procfile_read(&pf, buf, sizeof(buf)) == 14 && strcmp(buf, "again, longer\n") == 0,
	   "a second read sees new content from offset 0 through the same fd");
	rewrite("short\n");
	ok(procfile_read(&pf, buf, sizeof(buf)) == 6 && strcmp(buf, "short\n") == 0,
	   "a file that shrank leaves no stale tail");
	rewrite("");
	ok(procfile_read(&pf, buf, sizeof(buf)) == 0 && buf[0] == '\0',
	   "an empty file reads as \"\"");
	rewrite("0123456789abcdefXYZ\n");
	errno = 0;
	ok(procfile_read(&pf, buf, sizeof(buf)) == -1 && errno == EFBIG,
	   "a file larger than the buffer fails with EFBIG, not a silent cut");
	ok(strcmp(buf, "0123456789abcde") == 0,
	   "after EFBIG the buffer holds the head, NUL-terminated");
	rewrite("0123456789abcdef");
	ok(procfile_read(&pf, buf, sizeof(buf)) == -1 && errno == EFBIG,
	   "cap bytes do not fit (the NUL)");
	rewrite("0123456789abcde");
	ok(procfile_read(&pf, buf, sizeof(buf)) == 15, "a file of exactly cap-1 bytes fits");
	ok(procfile_read(&pf, buf, 0) == -1 && errno == EINVAL, "cap 0: EINVAL");
	ok(procfile_read(&pf, buf, 1) == -1 && errno == EFBIG && buf[0] == '\0',
	   "cap 1 holds only the NUL");
	procfile_close(&pf);
	procfile_close(&pf);
	ok(pf.fd == -1, "close is idempotent");
	ok(procfile_read(&pf, buf, sizeof(buf)) == -1 && errno == EBADF,
	   "reading a closed file: EBADF");
}

/*
 * smaps is one seq_file record per mapping, several kB in all, and seq_file
 * returns about a page per read: a reader that stops at the first short read
 * gets a fraction of it. The stack comes near the end.
 */
static void seq_file_pieces(void)
{
	static char buf[1 << 20], first[1 << 20];
	struct procfile pf;
	ssize_t n, piece;

	if (procfile_open(&pf, "", "proc/self/smaps") != 0) {
		skip("no /proc/self/smaps");
		skip("no /proc/self/smaps");
		return;
	}
	piece = pread(pf.fd, first, sizeof(first), 0);
	n = procfile_read(&pf, buf, sizeof(buf));
	procfile_close(&pf);
	ok(n > piece && piece > 0,
	   "a seq_file in pieces is read to its end (%zd bytes, first piece %zd)", n, piece);
	ok(n > 0 && buf[n - 1] == '\n' && strstr(buf, "[stack]") != NULL,
	   "the whole of /proc/self/smaps, up to the stack mapping");
}

static void live_files(void)
{
	static char buf[1 << 16];
	const char *files[] = { "proc/stat", "proc/meminfo", "proc/vmstat" };
	struct procfile pf;

	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		ssize_t n = -1;

		if (procfile_open(&pf, "", files[i]) == 0)
			n = procfile_read(&pf, buf, sizeof(buf));
		ok(n > 0 && (size_t)n == strlen(buf) && buf[n - 1] == '\n',
		   "/%s reads whole", files[i]);
		procfile_close(&pf);
	}
}

int main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/proc/x", dir);
	rewrite("x\n");

	paths();
	reads();
	seq_file_pieces();
	live_files();

	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", dir);
	rmdir(path);
	rmdir(dir);
	return done_testing();
}
