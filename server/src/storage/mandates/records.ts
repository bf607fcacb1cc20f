/** Records of mandates. */
import type { JsonObject } from '../../../../protocol/api/payments';
import type { PaymentMethod, PaymentMethodType } from '../../../../protocol/api/enums';
import type { MandateStatus } from '../../../../protocol/api/mandates';
import type { Scope } from '../../kernel/store-types';
import type { StoredCardFields } from '../payment-methods/records';

export interface MandateRecord extends Scope {
  mandateId: string;
  customerId: string;
  paymentMethodId: string;
  paymentMethod: PaymentMethod;
  paymentMethodType: PaymentMethodType | null;
  card: StoredCardFields | null;
  customerAcceptance: JsonObject | null;
  status: MandateStatus;
  /** The customer-present payment that set the mandate up. */
  originPaymentId: string;
  createdAt: Date;
  updatedAt: Date;
  revokedAt: Date | null;
}

export interface MandateFilter {
  limit: number;
  offset: number;
  status?: MandateStatus | undefined;
  customerId?: string | undefined;
}
