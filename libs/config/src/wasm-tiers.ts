import { setFlagsFromString } from 'node:v8';

/**
 * Imported first by each process's main, before anything compiles WebAssembly: V8 compiles
 * WebAssembly with its baseline compiler (Liftoff) only, lazily, function by function.
 *
 * Prisma's query compiler is a 3.4 MB WebAssembly module. V8's optimizing tier (TurboFan)
 * recompiled its hot functions on background threads, and the memory those compilations
 * left in glibc's arenas stayed: the API's idle RSS after a few management requests was
 * 272 MiB, 196 MiB without that tier (bench/RESULTS.md, "memory"). Prisma caches each query's
 * plan, so the query compiler runs once per query shape: its CPU per query is the same either way
 * (0.21-0.23 ms in both). Toolgate's hot paths send SQL on `pg` and never reach it.
 */
setFlagsFromString('--liftoff-only');
setFlagsFromString('--wasm-lazy-compilation');
