// The points figures of the dashboard and the period statement. A program with one loyalty currency
// reads "Points issued" and "Points redeemed"; one with several (Points and Stamps) reads each
// currency's own ("Points issued", "Stamps issued"…): the summed figure counted 40 points and 8 stamps
// as "48 points issued".

interface PointsOfFigures {
  points_issued: number;
  points_redeemed: number;
  loyalty: ReadonlyArray<{ currency: string; name: string; issued: number; redeemed: number }>;
}

export interface PointsLabels {
  pointsIssued: string;
  pointsRedeemed: string;
  currencyIssued: (name: string) => string;
  currencyRedeemed: (name: string) => string;
}

/** The points rows (or columns) of figures like `sample` (every figure of a reply names the same currencies): a label and its value. */
export function pointsFigures<F extends PointsOfFigures>(sample: F, t: PointsLabels): Array<[string, (f: F) => string]> {
  if (sample.loyalty.length <= 1) {
    return [
      [t.pointsIssued, (f) => String(f.points_issued)],
      [t.pointsRedeemed, (f) => String(f.points_redeemed)],
    ];
  }
  const of = (f: F, currency: string) => f.loyalty.find((l) => l.currency === currency);
  return sample.loyalty.flatMap(({ currency, name }): Array<[string, (f: F) => string]> => [
    [t.currencyIssued(name), (f) => String(of(f, currency)?.issued ?? 0)],
    [t.currencyRedeemed(name), (f) => String(of(f, currency)?.redeemed ?? 0)],
  ]);
}
