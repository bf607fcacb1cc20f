/**
 * Gives a simulator the memory a real rail has: every authorization, refund, capture and void is kept under the
 * reference Rail sent (attempt id, refund id, capture id, void, cancel-after-capture or increment reference), a request sent again under the same reference
 * gets the first answer (no second charge, refund or capture), and the lookups of crash recovery answer from it. What
 * an authorization went through (its captures, its void) is read from that memory, so a capture never exceeds the
 * authorization and a captured one is not voided (simulated-capture.ts). It also plays the planned faults.
 */
import type { JsonObject } from '../../../../protocol/api/payments';
import type {
  AuthorizeRequest,
  CancelCapturesOutcome,
  CancelCapturesRequest,
  CaptureOutcome,
  CaptureRequest,
  IncrementAuthorizationOutcome,
  IncrementAuthorizationRequest,
  LookupRequest,
  NotReceived,
  RailAdapter,
  RailOutcome,
  RefundOutcome,
  RefundRequest,
  SyncRequest,
  VoidOutcome,
  VoidRequest,
} from '../rail-adapter';
import type { RailLedger, RailLedgerKey } from '../rail-ledger';
import type { HoldingSimulator, SimulatedHold } from './simulated-capture';
import { SimulatedRailFault, type FaultedCall, type SimulatorFaults } from './simulator-faults';

export interface RememberingRailOptions {
  ledger: RailLedger;
  faults: SimulatorFaults;
  /** How long a call playing `timeout` keeps its answer back. */
  timeoutFaultMs: number;
}

const NOT_RECEIVED: NotReceived = { kind: 'not_received' };

export class RememberingRail implements RailAdapter {
  readonly rail: RailAdapter['rail'];
  readonly connector: string;
  readonly remembersInRailStore: boolean;
  readonly cardNetworks: RailAdapter['cardNetworks'];
  readonly refund?: RailAdapter['refund'];
  readonly lookupRefund?: RailAdapter['lookupRefund'];
  readonly capture?: RailAdapter['capture'];
  readonly voidAuthorization?: RailAdapter['voidAuthorization'];
  readonly lookupCapture?: RailAdapter['lookupCapture'];
  readonly lookupVoid?: RailAdapter['lookupVoid'];
  readonly cancelCaptures?: RailAdapter['cancelCaptures'];
  readonly lookupCancelCaptures?: RailAdapter['lookupCancelCaptures'];
  readonly authorizationValidity?: RailAdapter['authorizationValidity'];
  readonly incrementAuthorization?: RailAdapter['incrementAuthorization'];
  readonly lookupIncrement?: RailAdapter['lookupIncrement'];
  readonly authenticateThreeDs?: RailAdapter['authenticateThreeDs'];
  readonly completeAuthorization?: RailAdapter['completeAuthorization'];
  readonly walletSessionTokens?: RailAdapter['walletSessionTokens'];
  readonly openWalletOrder?: RailAdapter['openWalletOrder'];

  constructor(
    private readonly inner: RailAdapter & Partial<HoldingSimulator>,
    private readonly options: RememberingRailOptions,
  ) {
    this.rail = inner.rail;
    this.connector = inner.connector;
    this.remembersInRailStore = options.ledger.inRailStore === true;
    this.cardNetworks = inner.cardNetworks;
    if (inner.authorizationValidity !== undefined) this.authorizationValidity = inner.authorizationValidity;
    // An increment is kept under its own reference (each call its own: the core decides on the answer under the
    // payment's version), so that recovery can ask what became of one whose request died.
    if (inner.incrementAuthorization !== undefined) {
      const increment = inner.incrementAuthorization.bind(inner);
      this.incrementAuthorization = (request: IncrementAuthorizationRequest) =>
        this.remember(this.key(request.accountId, request, 'increment_authorization', request.reference), 'increment_authorization', request.now, () => increment(request));
      this.lookupIncrement = (request: LookupRequest) =>
        this.lookup<IncrementAuthorizationOutcome>(this.key(request.accountId, request, 'increment_authorization', request.reference));
    }
    // External 3DS authentication and wallets ask about the payment's state as it is now, like sync: nothing to remember.
    if (inner.authenticateThreeDs !== undefined) this.authenticateThreeDs = inner.authenticateThreeDs.bind(inner);
    // Completing an authorization moves money: the first answer is kept under the rail's reference, so two completes
    // (a retry, a race) authorize once. `pending` (not authenticated yet) is no answer and is not kept.
    if (inner.completeAuthorization !== undefined) {
      const complete = inner.completeAuthorization.bind(inner);
      this.completeAuthorization = async (request) => {
        const answer = await complete(request);
        if (answer.kind === 'pending') return answer;
        const key = this.key(request.accountId, request, 'complete_authorization', request.railReference);
        return (await this.options.ledger.rememberRailAnswer(key, answer as unknown as JsonObject, request.now)) as unknown as RailOutcome;
      };
    }
    if (inner.walletSessionTokens !== undefined) this.walletSessionTokens = inner.walletSessionTokens.bind(inner);
    if (inner.openWalletOrder !== undefined) this.openWalletOrder = inner.openWalletOrder.bind(inner);
    // A rail that does not refund keeps saying so (refund absent), so the core's capability check still applies.
    if (inner.refund !== undefined) {
      const refund = inner.refund.bind(inner);
      this.refund = (request: RefundRequest) =>
        this.remember(this.key(request.accountId, request, 'refund', request.refundId), 'refund', request.now, () => refund(request));
      this.lookupRefund = (request: LookupRequest) => this.lookup<RefundOutcome>(this.key(request.accountId, request, 'refund', request.reference));
    }
    // Captures and voids move money or end a hold: kept under their reference like refunds, and decided on the hold.
    if (inner.captureHeld !== undefined && inner.voidHeld !== undefined) {
      const captureHeld = inner.captureHeld.bind(inner);
      const voidHeld = inner.voidHeld.bind(inner);
      this.capture = (request: CaptureRequest) =>
        this.remember(this.key(request.accountId, request, 'capture', request.captureId), 'capture', request.now, async () =>
          captureHeld(request, await this.hold(request)),
        );
      this.voidAuthorization = (request: VoidRequest) =>
        this.remember(this.key(request.accountId, request, 'void', request.reference), 'void', request.now, async () =>
          voidHeld(request, await this.hold(request)),
        );
      this.lookupCapture = (request: LookupRequest) => this.lookup<CaptureOutcome>(this.key(request.accountId, request, 'capture', request.reference));
      this.lookupVoid = (request: LookupRequest) => this.lookup<VoidOutcome>(this.key(request.accountId, request, 'void', request.reference));
    }
    if (inner.captureHeld !== undefined && inner.cancelCapturesHeld !== undefined) {
      const cancelCapturesHeld = inner.cancelCapturesHeld.bind(inner);
      this.cancelCaptures = (request: CancelCapturesRequest) =>
        this.remember(this.key(request.accountId, request, 'cancel_post_capture', request.reference), 'cancel_post_capture', request.now, async () =>
          cancelCapturesHeld(request, await this.hold(request)),
        );
      this.lookupCancelCaptures = (request: LookupRequest) =>
        this.lookup<CancelCapturesOutcome>(this.key(request.accountId, request, 'cancel_post_capture', request.reference));
    }
  }

  /**
   * What this rail did with the authorization of `request.attemptId`: the sum of its captures taken, and whether it
   * was voided. A capture sent again under its own capture id counts itself here, but its first answer is the one
   * kept and returned (remember).
   */
  private async hold(request: { accountId: string; mode: RailLedgerKey['mode']; attemptId: string }): Promise<SimulatedHold> {
    const captures = await this.options.ledger.listRailAnswers(
      { accountId: request.accountId, mode: request.mode, rail: this.rail, operation: 'capture' },
      `${request.attemptId}_`,
    );
    const captured = captures.reduce((sum, answer) => sum + (answer['kind'] === 'captured' ? Number(answer['amount']) : 0), 0);
    const voids = await this.options.ledger.listRailAnswers(
      { accountId: request.accountId, mode: request.mode, rail: this.rail, operation: 'void' },
      `${request.attemptId}_`,
    );
    const cancels = await this.options.ledger.listRailAnswers(
      { accountId: request.accountId, mode: request.mode, rail: this.rail, operation: 'cancel_post_capture' },
      `${request.attemptId}_`,
    );
    return { captured, voided: voids.some((answer) => answer['kind'] === 'voided') || cancels.some((answer) => answer['kind'] === 'cancelled') };
  }

  paymentMethodTypes(currency: Parameters<RailAdapter['paymentMethodTypes']>[0]) {
    return this.inner.paymentMethodTypes(currency);
  }

  authorize(request: AuthorizeRequest): Promise<RailOutcome> {
    return this.remember(this.key(request.accountId, request, 'authorize', request.attemptId), 'authorize', request.now, () =>
      this.inner.authorize(request),
    );
  }

  sync(request: SyncRequest): Promise<RailOutcome> {
    return this.inner.sync(request);
  }

  lookupAuthorization(request: LookupRequest): Promise<RailOutcome | NotReceived> {
    return this.lookup<RailOutcome>(this.key(request.accountId, request, 'authorize', request.reference));
  }

  private key(accountId: string, request: { mode: RailLedgerKey['mode'] }, operation: RailLedgerKey['operation'], reference: string): RailLedgerKey {
    return { accountId, mode: request.mode, rail: this.rail, operation, reference };
  }

  private async remember<T extends RailOutcome | RefundOutcome | CaptureOutcome | VoidOutcome | CancelCapturesOutcome | IncrementAuthorizationOutcome>(key: RailLedgerKey, call: FaultedCall, now: Date, answer: () => Promise<T>): Promise<T> {
    const fault = this.options.faults.take(this.rail, call);
    if (fault === 'throw_before_accept') throw new SimulatedRailFault(fault);
    const first = await answer();
    let kept = (await this.options.ledger.rememberRailAnswer(key, first as unknown as JsonObject, now)) as unknown as T;
    if (fault === 'answer_twice') {
      // The duplicate is processed too; the ledger keeps the first answer, so it moves nothing twice.
      kept = (await this.options.ledger.rememberRailAnswer(key, (await answer()) as unknown as JsonObject, now)) as unknown as T;
    }
    if (fault === 'throw_after_accept') throw new SimulatedRailFault(fault);
    if (fault === 'timeout') await new Promise((resolve) => setTimeout(resolve, this.options.timeoutFaultMs).unref());
    return kept;
  }

  private async lookup<T>(key: RailLedgerKey): Promise<T | NotReceived> {
    const fault = this.options.faults.take(this.rail, 'lookup');
    if (fault !== undefined) throw new SimulatedRailFault(fault);
    const kept = await this.options.ledger.findRailAnswer(key);
    return kept === undefined ? NOT_RECEIVED : (kept as unknown as T);
  }
}
