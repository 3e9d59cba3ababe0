/*
 * fuzz_rundb.c - the run reader on a run.db mutated at the byte level: the
 * input is the whole file, read as `show`, `compare` and `report` read it
 * (fuzz_run.h). Seeds: the committed fixture runs.
 */
#include "fuzz_run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[400];
    const char *dir = fuzz_run_dir(path, sizeof(path));
    fuzz_write(path, data, size);
    fuzz_read_run(dir);
    return 0;
}
