/*
 * error.c - the process-wide last-error message (see error.h).
 */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char last_msg[4096];
static int last_code;

int error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
    va_end(ap);
    last_code = code;
    return code;
}

int error_prefix(int code, const char *fmt, ...)
{
    char head[1024], old[sizeof(last_msg)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof(head), fmt, ap);
    va_end(ap);
    memcpy(old, last_msg, sizeof(old));
    /* Truncating a very long message is fine; losing the head is not. */
    size_t n = strlen(head);
    if (n > sizeof(last_msg) - 3)
        n = sizeof(last_msg) - 3;
    memcpy(last_msg, head, n);
    memcpy(last_msg + n, ": ", 2);
    size_t room = sizeof(last_msg) - n - 3;
    size_t m = strnlen(old, room);
    memcpy(last_msg + n + 2, old, m);
    last_msg[n + 2 + m] = '\0';
    last_code = code;
    return code;
}

const char *error_last(void) { return last_msg; }

int error_code(void) { return last_code; }

void error_clear(void)
{
    last_msg[0] = '\0';
    last_code = BG_OK;
}

int error_exit_status(int code)
{
    if (code == BG_EINTR)
        return 130;
    return (code == BG_ESPEC || code == BG_EUSAGE || code == BG_ENOTFOUND || code == BG_EDAMAGED) ? 2 : 1;
}
