/**
 * A failed listen, said in terms of the variable that chose the port: "port 9464 is in use" alone leaves the user
 * guessing which setting to change. Errors other than a taken or forbidden port are returned as they are.
 */
export function explainListenError(error: unknown, variable: string, port: number, host?: string): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = host ? `${host}:${port}` : `port ${port}`;
  const fix = `set ${variable} to a free port${variable === 'PORT' ? '' : ' (0: any free port)'}`;
  if (code === 'EADDRINUSE')
    return new Error(`${where} (${variable}) is already in use by another process: ${fix}`, { cause: error });
  if (code === 'EACCES')
    return new Error(`${where} (${variable}) needs privileges this process lacks: ${fix}`, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}
