// The floor of a sandbox without bubblewrap (issue 37): the namespaces and mounts of a bare
// `bwrap --ro-bind / / --dev /dev --proc /proc --bind P P --unshare-net --unshare-pid CMD`
// (plus ipc and uts), made by one process with the new mount API: one recursive clone of `/`
// made read-only by one `mount_setattr`, the project moved onto it, a small `/dev`, `/proc`,
// `pivot_root`, then CMD. A measuring probe, not a sandbox: no seccomp, no Landlock, and
// nothing of wicket's walls. Built and timed by bench/ns_floor.sh.
//
//   ns_floor PROJECT CMD [ARG...]
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <signal.h>
static void die(const char *m) { perror(m); _exit(127); }
static void wr(const char *p, const char *s) { int fd = open(p, O_WRONLY); if (fd < 0 || write(fd, s, strlen(s)) < 0) die(p); close(fd); }
static int attach(const char *src, const char *dst, int ro) {
  int t = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | AT_RECURSIVE | OPEN_TREE_CLOEXEC);
  if (t < 0) die("open_tree");
  if (ro) { struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV };
    if (mount_setattr(t, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a)) die("mount_setattr"); }
  if (move_mount(t, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH)) die("move_mount");
  close(t); return 0;
}
int main(int argc, char **argv) {
  const char *proj = argv[1]; char **cmd = argv + 2;
  uid_t uid = geteuid(); gid_t gid = getegid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)) die("unshare");
  char m[64];
  wr("/proc/self/setgroups", "deny");
  snprintf(m, sizeof m, "%d %d 1\n", uid, uid); wr("/proc/self/uid_map", m);
  snprintf(m, sizeof m, "%d %d 1\n", gid, gid); wr("/proc/self/gid_map", m);
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid) { int st; waitpid(pid, &st, 0); return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }
  // pid 1 of the new pid namespace
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) die("private");
  int r = open_tree(AT_FDCWD, "/", OPEN_TREE_CLONE | AT_RECURSIVE | OPEN_TREE_CLOEXEC);
  if (r < 0) die("open_tree /");
  int pt = open_tree(AT_FDCWD, proj, OPEN_TREE_CLONE | AT_RECURSIVE | OPEN_TREE_CLOEXEC);
  if (pt < 0) die("open_tree proj");
  if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")) die("tmpfs");
  mkdir("/tmp/r", 0755);
  struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV };
  if (mount_setattr(r, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a)) die("setattr /");
  if (move_mount(r, "", AT_FDCWD, "/tmp/r", MOVE_MOUNT_F_EMPTY_PATH)) die("move /");
  char dst[4096];
  snprintf(dst, sizeof dst, "/tmp/r%s", proj);
  if (move_mount(pt, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH)) die("move proj");
  if (mount("tmpfs", "/tmp/r/dev", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")) die("dev");
  const char *devs[] = {"null", "zero", "full", "random", "urandom", "tty"};
  for (int i = 0; i < 6; i++) { char s[64], d[64]; snprintf(s, 64, "/dev/%s", devs[i]); snprintf(d, 64, "/tmp/r/dev/%s", devs[i]);
    int fd = open(d, O_CREAT | O_WRONLY, 0666); if (fd >= 0) close(fd); attach(s, d, 0); }
  if (mount("proc", "/tmp/r/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) die("proc");
  if (chdir("/tmp/r")) die("chdir");
  if (syscall(SYS_pivot_root, ".", ".")) die("pivot");
  if (umount2(".", MNT_DETACH)) die("umount old");
  if (chdir(proj)) die("chdir proj");
  pid_t c = fork();
  if (c == 0) { execvp(cmd[0], cmd); die("exec"); }
  int st; waitpid(c, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
