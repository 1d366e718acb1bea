import { Money, formatMoney } from "./money";
import type { Cart, LineItem } from "./cart";

export interface PaymentGateway {
  charge(amount: Money, token: string): Promise<string>;
  refund(chargeId: string): Promise<void>;
}

export type CheckoutResult = { orderId: string; total: Money };

/** Computes totals and charges the customer's card. */
export class CheckoutService {
  private readonly taxRate: number;

  constructor(private gateway: PaymentGateway, taxRate = 0.2) {
    this.taxRate = taxRate;
  }

  subtotal(cart: Cart): Money {
    return cart.items.reduce(
      (sum: Money, item: LineItem) => sum.add(item.price.times(item.quantity)),
      Money.zero(cart.currency),
    );
  }

  async checkout(cart: Cart, token: string): Promise<CheckoutResult> {
    const subtotal = this.subtotal(cart);
    const total = subtotal.add(subtotal.times(this.taxRate));
    const orderId = await this.gateway.charge(total, token);
    return { orderId, total };
  }
}

export const describeTotal = (result: CheckoutResult): string =>
  `Order ${result.orderId}: ${formatMoney(result.total)}`;

export function emptyCart(currency: string): Cart {
  return { currency, items: [] };
}
