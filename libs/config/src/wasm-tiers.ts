import { setFlagsFromString } from 'node:v8';

/**
 * Imported first by each process's main, before anything compiles WebAssembly: V8 compiles every
 * WebAssembly module of the process with its baseline compiler (Liftoff) only.
 *
 * Prisma's query compiler is a 3.4 MB WebAssembly module. V8's optimizing tier (TurboFan) recompiled its
 * hot functions on background threads, and the memory those compilations left in glibc's arenas stayed:
 * the API's RSS after a few management requests was 272 MiB, 196-208 MiB without that tier. Measured with
 * the flag and without it: the same CPU per Prisma query (0.21-0.23 ms, Prisma caches each query's plan) and
 * per call (bench/cpu-per-call.mjs, three pairs), though undici's HTTP parser (llhttp, also WebAssembly) reads
 * every webhook and MCP answer on Liftoff's code too. An unknown flag is only warned about on stderr.
 */
setFlagsFromString('--liftoff-only');
