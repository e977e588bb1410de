// Issue 29: copies of the target that differ from the reference only in docstring, comments or layout (a vendored
// copy, build/lib, a docs example) are twins and get masked with it; a different function of the same name is not.

import { describe, expect, it } from 'vitest';
import { codeSkeleton, twinTest } from '../../main/retrieve/target.ts';

const REFERENCE = `def apply_discount(amount, percent):
    """Take percent per cent off amount."""
    if not 0 <= percent <= 100:
        raise ValueError("percent must be within 0-100")
    off = _round_half_up(Decimal(amount.cents) * Decimal(str(percent)) / 100)
    return Money(amount.cents - int(off), amount.currency)
`;

describe('twins of the target', () => {
  const twin = twinTest(REFERENCE);

  it('another docstring, comments and layout: the same skeleton, a twin', () => {
    const copy = `def apply_discount(amount, percent):
    '''Vendored copy.

    Returns a new Money.'''
    # validate first
    if not 0 <= percent <= 100: raise ValueError("percent must be within 0-100")
    off = _round_half_up(Decimal(amount.cents)*Decimal(str(percent))/100)  # in cents
    return Money(amount.cents - int(off),
                 amount.currency)
`;
    expect(codeSkeleton(copy)).toBe(codeSkeleton(REFERENCE));
    expect(twin(copy)).toBe(true);
  });

  it('nearly the same tokens (a renamed local) is a twin; another body of the same name is not', () => {
    expect(twin(REFERENCE.replace(/\boff\b/g, 'discount'))).toBe(true);
    const other = `def apply_discount(amount, percent):
    return amount
`;
    expect(twin(other)).toBe(false);
    const different = `def apply_discount(order, code):
    rule = RULES.get(code)
    if rule is None:
        raise KeyError(code)
    for line in order.lines:
        line.price = rule.apply(line.price, line.quantity)
    return order
`;
    expect(twin(different)).toBe(false);
  });
});
