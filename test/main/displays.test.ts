import { describe, expect, it } from 'vitest';
import { chooseKioskDisplay } from '../../src/main/displays';

const screen = (id: number, x: number) => ({ id, bounds: { x, y: 0, width: 1920, height: 1080 } });

describe('kiosk display choice', () => {
  const primary = screen(10, 0);
  const customerFacing = screen(20, 1920);

  it('uses the screen asked for by index', () => {
    expect(chooseKioskDisplay([primary, customerFacing], 10, 0)).toEqual({ display: primary });
    expect(chooseKioskDisplay([primary, customerFacing], 10, 1)).toEqual({ display: customerFacing });
  });

  it('without a choice, takes the first screen that is not the primary, else the primary', () => {
    expect(chooseKioskDisplay([primary, customerFacing], 10, null)?.display).toBe(customerFacing);
    expect(chooseKioskDisplay([customerFacing, primary], 10, null)?.display).toBe(customerFacing);
    expect(chooseKioskDisplay([primary], 10, null)?.display).toBe(primary);
  });

  it('falls back with a note when the screen asked for is not connected, and answers null without screens', () => {
    expect(chooseKioskDisplay([primary, customerFacing], 10, 3)).toEqual({ display: customerFacing, note: expect.stringContaining('screen 3 not found') });
    expect(chooseKioskDisplay([], 10, 0)).toBeNull();
  });
});
