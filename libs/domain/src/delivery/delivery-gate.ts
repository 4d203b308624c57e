const FIRST_GUESS_MS = 100;
const MIN_WAIT_MS = 5;
const MAX_WAIT_MS = 5000;

/** The caps of a gate: deliveries in flight in the process, and of one app. */
export interface GateCaps {
  inFlight: number;
  perApp: number;
  /** Deliveries that may wait in the process for a slot, per slot (0: none wait; `take` only). */
  waitingPerSlot: number;
}

/** A delivery slot held at the gate: released once the handler answered (release is idempotent). */
export interface DeliverySlot {
  release(): void;
  /** Told right before the request goes out (a rate counts the moment requests leave). */
  starting?(): Promise<void>;
}

/** What a delivery is told at the gate: run with a slot, or wait outside the process and ask again. */
export type Admission = DeliverySlot | 'later' | 'closing';

interface Waiting {
  dueAt: number;
  id: string;
  admit: (admission: Admission) => void;
}

interface AppLane {
  inFlight: number;
  /** Moving average of this app's attempt durations: how soon a slot frees. */
  averageMs: number;
  /** This app's deliveries waiting in the process for a slot, earliest due first. */
  waiting: Waiting[];
  /** Deliveries of this app sent back to wait outside the process, not yet run. */
  sentBack: Set<string>;
}

/**
 * The gate in front of every attempt a process makes of a queued call: at most `inFlight` deliveries at once, and
 * at most `perApp` of one app, so a handler that hangs until its timeout ties up its own app's slots, never the
 * rest. A delivery under both caps runs at once (two counters: the cap costs nothing then). Over them it waits here
 * (`admit`), and a freed slot goes to the earliest-due waiting delivery of an app under its cap; each app may hold
 * at most half of the waiting room, past that its latest-due delivery is sent back to wait outside the process for
 * about as long as its place in the app's line takes to clear. `take` never waits: no slot, no delivery here.
 */
export class DeliveryGate {
  /** One small entry per app this process has delivered for (kept: it remembers the app's pace). */
  private readonly apps = new Map<string, AppLane>();
  private running = 0;
  private closed = false;
  private readonly waitingPerApp: number;

  constructor(private readonly caps: GateCaps) {
    this.waitingPerApp = Math.max(1, (caps.inFlight * caps.waitingPerSlot) / 2);
  }

  /** Deliveries the process should hold at once: the slots plus the waiting room. */
  get capacity(): number {
    return this.caps.inFlight * (1 + this.caps.waitingPerSlot);
  }

  /** A slot now, or null when the process or the app is at its cap (or the gate closed). */
  take(appId: string): DeliverySlot | null {
    if (this.closed) return null;
    const app = this.lane(appId);
    return this.hasRoom(app) ? this.hold(app, '') : null;
  }

  /** A slot once one is free for the app, or 'later' / 'closing' when the delivery must wait outside the process. */
  admit(appId: string, id: string, dueAt: number): Promise<Admission> {
    if (this.closed) return Promise.resolve('closing');
    const app = this.lane(appId);
    if (this.hasRoom(app)) return Promise.resolve(this.hold(app, id));
    return new Promise<Admission>((admit) => {
      insertByDue(app.waiting, { dueAt, id, admit });
      if (app.waiting.length > this.waitingPerApp) {
        const latest = app.waiting.pop() as Waiting;
        app.sentBack.add(latest.id);
        latest.admit('later');
      }
    });
  }

  /** How long a delivery sent back should wait before it asks again (jittered). */
  waitMs(appId: string, id: string): number {
    const app = this.lane(appId);
    if (app.sentBack.size > 100_000) app.sentBack.clear(); // deliveries cancelled while waiting never come back
    app.sentBack.add(id);
    const line = 1 + (app.sentBack.size + app.waiting.length) / this.caps.perApp;
    const wait = Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, app.averageMs * line));
    return Math.round(wait * (0.75 + Math.random() * 0.5));
  }

  /** Sends every waiting delivery back (the process is stopping); later ones are sent back or refused at once. */
  close(): void {
    this.closed = true;
    for (const app of this.apps.values()) {
      for (const entry of app.waiting.splice(0)) entry.admit('closing');
    }
  }

  /** Deliveries waiting for a slot. */
  get waiting(): number {
    let count = 0;
    for (const app of this.apps.values()) count += app.waiting.length;
    return count;
  }

  /** Deliveries holding a slot. */
  get inFlight(): number {
    return this.running;
  }

  private hasRoom(app: AppLane): boolean {
    return this.running < this.caps.inFlight && app.inFlight < this.caps.perApp;
  }

  private hold(app: AppLane, id: string): DeliverySlot {
    app.inFlight += 1;
    this.running += 1;
    if (app.sentBack.size > 0) app.sentBack.delete(id);
    const started = performance.now();
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        app.inFlight -= 1;
        app.averageMs = app.averageMs * 0.8 + (performance.now() - started) * 0.2;
        this.running -= 1;
        this.admitWaiting();
      },
    };
  }

  private admitWaiting(): void {
    while (this.running < this.caps.inFlight) {
      let best: AppLane | undefined;
      for (const app of this.apps.values()) {
        if (app.waiting.length === 0 || app.inFlight >= this.caps.perApp) continue;
        if (!best || app.waiting[0].dueAt < best.waiting[0].dueAt) best = app;
      }
      if (!best) return;
      const entry = best.waiting.shift() as Waiting;
      entry.admit(this.hold(best, entry.id));
    }
  }

  private lane(appId: string): AppLane {
    let app = this.apps.get(appId);
    if (!app) {
      app = { inFlight: 0, averageMs: FIRST_GUESS_MS, waiting: [], sentBack: new Set() };
      this.apps.set(appId, app);
    }
    return app;
  }
}

/** Keeps `line` sorted by due time; equal due times keep their arrival order. */
function insertByDue(line: Waiting[], entry: Waiting): void {
  let low = 0;
  let high = line.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (line[mid].dueAt <= entry.dueAt) low = mid + 1;
    else high = mid;
  }
  line.splice(low, 0, entry);
}
