/*
 * fuzz_rundb.c - the run reader on a run.db mutated at the byte level: the
 * input is the whole file, read as `show`, `compare` and `report` read it
 * (fuzz_run.h). Seeds: the committed fixture runs.
 */
#include "fuzz_run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[300], path[400];
    snprintf(dir, sizeof(dir), "%s/run", fuzz_scratch());
    mkdir(dir, 0700);
    snprintf(path, sizeof(path), "%s/run.db-wal", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/run.db-shm", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/run.db", dir);
    fuzz_write(path, data, size);
    fuzz_read_run(dir);
    return 0;
}
