import { expect, it } from 'vitest';
import { propertyTest } from '../../src/testing/index.ts';

const schema = `
@public
collection Account {
  id: string;
  balance: number;

  constructor (id: string) {
    this.id = id;
    this.balance = 0;
  }

  withdraw (amount: number) {
    if (amount <= 0) { error('amount must be positive'); }
    if (amount > this.balance) { error('insufficient balance'); }
    this.balance -= amount;
  }
}
`;

it('withdraw takes exactly the amount and never leaves a negative balance', () => {
  propertyTest(schema, 'Account.withdraw', ({ record, args, result }) => {
    const [amount] = args as [number];
    if (!result.ok) {
      // Refusals are the function's own errors, never faults.
      expect(result.error.reason).toBe('function/collection-error');
      return;
    }
    const before = record!.balance as number;
    const after = result.transition.record!.balance as number;
    return after === before - amount && after >= 0;
  });
});
