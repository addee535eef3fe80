/* test_procfile.c - kept-open files re-read from offset 0. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collect.h"
#include "tap.h"

static void rewrite(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		perror(path);
	close(fd);
}

int main(void)
{
	char dir[] = "/tmp/cm-procfile-XXXXXX", path[512], buf[16], root[512];
	struct procfile pf;
	FILE *f;

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/proc/x", dir);
	f = fopen(path, "w");
	fputs("hello\n", f);
	fclose(f);

	ok(procfile_open(&pf, dir, "proc/x") == 0, "opens ROOT/proc/x");
	ok(procfile_read(&pf, buf, sizeof(buf)) == 6 && strcmp(buf, "hello\n") == 0, "reads it whole");
	rewrite(path, "again, longer\n");
	ok(procfile_read(&pf, buf, sizeof(buf)) == 14 && strcmp(buf, "again, longer\n") == 0,
	   "a second read sees new content from offset 0 through the same fd");
	rewrite(path, "0123456789abcdefXYZ\n");
	errno = 0;
	ok(procfile_read(&pf, buf, sizeof(buf)) == -1 && errno == EFBIG,
	   "a file larger than the buffer fails with EFBIG, not a silent cut");
	rewrite(path, "0123456789abcde");
	ok(procfile_read(&pf, buf, sizeof(buf)) == 15, "a file of exactly cap-1 bytes fits");
	procfile_close(&pf);
	procfile_close(&pf);
	ok(pf.fd == -1, "close is idempotent");
	ok(procfile_open(&pf, dir, "proc/missing") == -1 && pf.fd == -1 && errno == ENOENT,
	   "a missing file fails with ENOENT and leaves fd -1");
	ok(procfile_open(&pf, "", "proc/self/stat") == 0 && procfile_read(&pf, root, sizeof(root)) > 0,
	   "root \"\" reads the live /proc");
	procfile_close(&pf);
	ok(procfile_open(&pf, "/", "proc/self/stat") == 0, "root \"/\" is the live system too");
	procfile_close(&pf);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", dir);
	rmdir(path);
	rmdir(dir);
	return done_testing();
}
