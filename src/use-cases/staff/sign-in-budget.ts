/**
 * How many console sign-ins may have their password checked at once, from one client network and
 * in all. The console's sign-in is the one password check anyone may ask for without a
 * credential, and each costs a hash; the per-address request rate admits a hundred a second, far
 * more than hashing serves, so without this a flood from one network (or many) queues without end.
 * A sign-in refused here has cost nothing: no attempt counted, nothing read.
 */
export const STAFF_SIGN_INS_PER_NETWORK = 2;
export const STAFF_SIGN_INS_IN_ALL = 8;
/**
 * Places of the total kept for known devices (staff/devices.ts): four networks of two would
 * otherwise fill the total and keep every staff member out. A known device is held to the
 * total, not to its network's share, so that a flood from its own network does not stop it.
 */
export const STAFF_SIGN_INS_KEPT_FOR_KNOWN_DEVICES = 2;

/** Whether a sign-in may go on, or which budget is spent. */
export type BudgetPlace = 'taken' | 'network-full' | 'all-full';

export class SignInBudget {
  /** Sign-ins being checked, by client network; a network leaves the map when its last one ends. */
  private readonly inUse = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly perNetwork = STAFF_SIGN_INS_PER_NETWORK,
    private readonly inAll = STAFF_SIGN_INS_IN_ALL,
    private readonly keptForKnown = STAFF_SIGN_INS_KEPT_FOR_KNOWN_DEVICES,
  ) {}

  /**
   * Takes a place for a sign-in from `network`, from a known device or not; one taken must be
   * given back with `release`.
   */
  take(network: string, knownDevice = false): BudgetPlace {
    const ofNetwork = this.inUse.get(network) ?? 0;
    if (!knownDevice && ofNetwork >= this.perNetwork) return 'network-full';
    if (this.total >= (knownDevice ? this.inAll : this.inAll - this.keptForKnown)) return 'all-full';
    this.inUse.set(network, ofNetwork + 1);
    this.total += 1;
    return 'taken';
  }

  release(network: string): void {
    const ofNetwork = this.inUse.get(network);
    if (ofNetwork === undefined) return;
    if (ofNetwork <= 1) this.inUse.delete(network);
    else this.inUse.set(network, ofNetwork - 1);
    this.total -= 1;
  }

  /** Sign-ins being checked now, in all (for tests and metrics). */
  get checking(): number {
    return this.total;
  }
}
