export const TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled'] as const;
export const isTerminal = (status: string) => (TERMINAL_STATUSES as readonly string[]).includes(status);
