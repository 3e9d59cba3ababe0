/*
 * slurm.c - sbatch, squeue, scontrol and scancel (see slurm.h).
 */
#include "run/slurm.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int read_all(int fd, struct strbuf *sb)
{
    char buf[4096];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n > 0) {
            if (strbuf_append(sb, buf, (size_t)n) < 0)
                return error_code();
        } else if (n == 0 || errno != EINTR) {
            return 0;
        }
    }
}

int slurm_command(char *const argv[], char **out, char **err_out, int *status)
{
    int po[2], pe[2];
    *status = -1;
    if (out)
        *out = NULL;
    if (err_out)
        *err_out = NULL;
    if (pipe2(po, O_CLOEXEC) < 0)
        return error_set(BG_EIO, "pipe: %s", strerror(errno));
    if (pipe2(pe, O_CLOEXEC) < 0) {
        close(po[0]);
        close(po[1]);
        return error_set(BG_EIO, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        return error_set(BG_EIO, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        execvp(argv[0], argv);
        /* voice-ok: a forked child's stderr, the pipe the parent reads into *err_out */
        fprintf(stderr, "%s: %s", argv[0], strerror(errno));
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    struct strbuf so = {0}, se = {0};
    /* Both pipes at once, so a chatty stderr cannot block the command. */
    struct pollfd p[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
    int open_fds = 2, err = 0;
    while (open_fds > 0 && !err) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[4096];
            ssize_t n = read(p[i].fd, buf, sizeof(buf));
            if (n > 0) {
                strbuf_append(i ? &se : &so, buf, (size_t)n);
            } else if (n == 0 || errno != EINTR) {
                close(p[i].fd);
                p[i].fd = -1;
                open_fds--;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (p[i].fd >= 0) {
            read_all(p[i].fd, i ? &se : &so);
            close(p[i].fd);
        }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    if (!err && *status == 127 && se.len && strstr(se.buf, strerror(ENOENT)))
        err = error_set(BG_ENOTFOUND, "%s is not installed here (not on PATH)", argv[0]);
    if (!err && out)
        *out = strbuf_detach(&so); /* "" when it printed nothing */
    if (!err && err_out)
        *err_out = strbuf_detach(&se);
    strbuf_free(&so);
    strbuf_free(&se);
    return err;
}

bool slurm_have(const char *cmd)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        char *f = xprintf("%.*s/%s", (int)n, p, cmd);
        bool ok = access(f, X_OK) == 0;
        free(f);
        if (ok)
            return true;
        p += n;
        if (*p)
            p++;
    }
    return false;
}

static void chomp(char *s)
{
    size_t n = s ? strlen(s) : 0;
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
}

int slurm_submit(const struct strlist *args, const char *script, char job[32])
{
    char **argv = xcalloc(args->n + 4, sizeof(*argv));
    char *out = NULL, *err_text = NULL;
    int status = 0, err = 0;
    job[0] = '\0';
    size_t k = 0;
    argv[k++] = "sbatch";
    argv[k++] = "--parsable";
    for (size_t i = 0; i < args->n; i++)
        argv[k++] = args->v[i];
    argv[k++] = (char *)script;
    if ((err = slurm_command(argv, &out, &err_text, &status)) < 0)
        goto done;
    chomp(out);
    chomp(err_text);
    /* --parsable prints "jobid" or "jobid;cluster". */
    size_t n = strspn(out, "0123456789");
    if (status != 0 || n == 0 || n >= 32) {
        err = error_set(BG_EUSAGE, "sbatch failed (exit %d): %s", status,
                        err_text && *err_text ? err_text : out);
        goto done;
    }
    memcpy(job, out, n);
    job[n] = '\0';
done:
    free(argv);
    free(out);
    free(err_text);
    return err;
}

int slurm_queue(const struct strlist *jobs, struct slurm_tasks *out)
{
    memset(out, 0, sizeof(*out));
    if (jobs->n == 0)
        return 0;
    struct strbuf ids = {0};
    for (size_t i = 0; i < jobs->n; i++)
        strbuf_printf(&ids, "%s%s", i ? "," : "", jobs->v[i]);
    char *argv[] = {"squeue", "-h", "-r", "-t", "all", "-j", ids.buf, "-o", "%F|%K|%T|%r|%N", NULL};
    char *text = NULL, *err_text = NULL;
    int status = 0, err = slurm_command(argv, &text, &err_text, &status);
    strbuf_free(&ids);
    if (err < 0)
        return err;
    /* squeue exits 1 with "Invalid job id specified" once every job is
     * forgotten: that is an empty queue, not an error. */
    if (status != 0 && !(err_text && strstr(err_text, "Invalid job id"))) {
        chomp(err_text);
        err = error_set(BG_EIO, "squeue failed (exit %d): %s", status, err_text ? err_text : "");
    }
    size_t cap = 0;
    for (char *line = text, *next; !err && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        struct slurm_task t = {0};
        char *f[5] = {0};
        int nf = 0;
        for (char *p = line; nf < 5; nf++) {
            f[nf] = p;
            char *bar = strchr(p, '|');
            if (!bar) {
                nf++;
                break;
            }
            *bar = '\0';
            p = bar + 1;
        }
        if (nf < 5 || !*f[1] || strspn(f[1], "0123456789") != strlen(f[1]))
            continue; /* a still-pending array shows as "1-5%2" until split */
        snprintf(t.job, sizeof(t.job), "%s", f[0]);
        t.task = atoi(f[1]);
        snprintf(t.state, sizeof(t.state), "%s", f[2]);
        snprintf(t.reason, sizeof(t.reason), "%s", f[3]);
        snprintf(t.node, sizeof(t.node), "%s", f[4]);
        if (out->n == cap) {
            cap = cap ? cap * 2 : 16;
            out->v = xrealloc(out->v, cap * sizeof(*out->v));
        }
        out->v[out->n++] = t;
    }
    free(text);
    free(err_text);
    if (err)
        slurm_tasks_free(out);
    return err;
}

void slurm_tasks_free(struct slurm_tasks *t)
{
    free(t->v);
    memset(t, 0, sizeof(*t));
}

const struct slurm_task *slurm_find(const struct slurm_tasks *t, const char *job, int task)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].task == task && strcmp(t->v[i].job, job) == 0)
            return &t->v[i];
    return NULL;
}

char *slurm_show(const char *job, int task)
{
    char id[64];
    snprintf(id, sizeof(id), "%s_%d", job, task);
    char *argv[] = {"scontrol", "show", "job", "-o", id, NULL};
    char *out = NULL;
    int status = 0;
    if (slurm_command(argv, &out, NULL, &status) < 0 || status != 0) {
        free(out);
        return xstrdup("");
    }
    chomp(out);
    return out;
}

char *slurm_field(const char *line, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = line; p && *p; p++) {
        if ((p == line || p[-1] == ' ') && strncmp(p, name, n) == 0 && p[n] == '=') {
            const char *v = p + n + 1;
            return xstrndup(v, strcspn(v, " "));
        }
    }
    return NULL;
}

int slurm_cancel(const char *job)
{
    char *argv[] = {"scancel", (char *)job, NULL};
    char *err_text = NULL;
    int status = 0, err = slurm_command(argv, NULL, &err_text, &status);
    if (!err && status != 0) {
        chomp(err_text);
        err = error_set(BG_EIO, "scancel %s failed: %s", job, err_text ? err_text : "");
    }
    free(err_text);
    return err;
}

static const struct {
    const char *state;
    enum status status;
} final_states[] = {
    {"COMPLETED", STATUS_ERROR},       {"FAILED", STATUS_ERROR},         {"SPECIAL_EXIT", STATUS_ERROR},
    {"TIMEOUT", STATUS_TIMEOUT},       {"DEADLINE", STATUS_TIMEOUT},     {"OUT_OF_MEMORY", STATUS_OOM},
    {"NODE_FAIL", STATUS_INTERRUPTED}, {"CANCELLED", STATUS_INTERRUPTED}, {"PREEMPTED", STATUS_INTERRUPTED},
    {"BOOT_FAIL", STATUS_INTERRUPTED},
};

bool slurm_state_final(const char *state)
{
    return slurm_state_status(state) != STATUS_NONE;
}

enum status slurm_state_status(const char *state)
{
    for (size_t i = 0; i < sizeof(final_states) / sizeof(final_states[0]); i++)
        if (strncmp(state, final_states[i].state, strlen(final_states[i].state)) == 0)
            return final_states[i].status;
    return STATUS_NONE;
}

char *slurm_ranges(const int *ids, size_t n)
{
    struct strbuf sb = {0};
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && ids[j + 1] == ids[j] + 1)
            j++;
        if (j > i)
            strbuf_printf(&sb, "%s%d-%d", sb.len ? "," : "", ids[i], ids[j]);
        else
            strbuf_printf(&sb, "%s%d", sb.len ? "," : "", ids[i]);
        i = j + 1;
    }
    return strbuf_detach(&sb); /* "" for no ids */
}

char *slurm_pattern_escape(const char *text)
{
    struct strbuf sb = {0};
    strbuf_append(&sb, "", 0);
    for (const char *p = text; *p; p++)
        strbuf_append(&sb, *p == '%' ? "%%" : p, *p == '%' ? 2 : 1);
    return strbuf_detach(&sb);
}

int slurm_check_dir(const char *dir)
{
    char cwd[4096] = "";
    if (dir[0] != '/' && !getcwd(cwd, sizeof(cwd)))
        cwd[0] = '\0';
    if (strchr(dir, '\\') || strchr(cwd, '\\'))
        return error_set(BG_EUSAGE, "%s%s%s: a backslash in the run directory's path turns off Slurm's "
                         "file name patterns for --output (every task's log would be one file); choose "
                         "another --out for --executor slurm", cwd, cwd[0] ? "/" : "", dir);
    return 0;
}
