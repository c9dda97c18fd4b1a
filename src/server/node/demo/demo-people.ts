// The demo's customers: fifty clearly fake people (example.com emails, +1 415 555-01xx numbers,
// which are reserved for fiction), each with a loyalty card DEMO00nn. The same list at every first
// run, so the start-up message and the README can name who to try.

export interface DemoPerson {
  firstName: string;
  lastName: string;
  email: string;
  /** National format with the store's country (US). */
  phone: string;
  card: string;
  /** How they use the program; decides visits, saved cards and auto reload (demo-history.ts). */
  habit: 'regular' | 'weekly' | 'occasional' | 'lapsed' | 'new';
}

const NAMES: Array<[string, string]> = [
  ['Ana', 'López'],
  ['Ben', 'Okafor'],
  ['Chloé', 'Martin'],
  ['Daniel', 'Kim'],
  ['Elena', 'Rossi'],
  ['Farid', 'Haddad'],
  ['Grace', 'Nguyen'],
  ['Hugo', 'Silva'],
  ['Ines', 'García'],
  ['Jamal', 'Brooks'],
  ['Kaito', 'Tanaka'],
  ['Lena', 'Schmidt'],
  ['Mateo', 'Fernández'],
  ['Nora', 'Lindqvist'],
  ['Omar', 'Khalil'],
  ['Priya', 'Sharma'],
  ['Quinn', 'Murphy'],
  ['Rosa', 'Delgado'],
  ['Sam', 'Cohen'],
  ['Tara', 'Singh'],
  ['Umar', 'Farouk'],
  ['Vera', 'Novak'],
  ['Will', 'Turner'],
  ['Ximena', 'Ruiz'],
  ['Yusuf', 'Demir'],
  ['Zoe', 'Walsh'],
  ['Aiko', 'Mori'],
  ['Bruno', 'Costa'],
  ['Carmen', 'Vega'],
  ['Diego', 'Morales'],
  ['Emma', 'Johansson'],
  ['Felix', 'Wagner'],
  ['Gabriela', 'Castro'],
  ['Hana', 'Yilmaz'],
  ['Ivan', 'Petrov'],
  ['Julia', 'Becker'],
  ['Kofi', 'Mensah'],
  ['Lucia', 'Romero'],
  ['Marcus', 'Reed'],
  ['Nadia', 'Ivanova'],
  ['Oscar', 'Nilsson'],
  ['Paula', 'Herrera'],
  ['Raj', 'Patel'],
  ['Sofia', 'Bianchi'],
  ['Theo', 'Laurent'],
  ['Uma', 'Reddy'],
  ['Victor', 'Moreau'],
  ['Wen', 'Zhang'],
  ['Yara', 'Haddad'],
  ['Zain', 'Ali'],
];

const HABITS: DemoPerson['habit'][] = ['regular', 'weekly', 'occasional', 'weekly', 'lapsed', 'regular', 'occasional', 'new', 'weekly', 'occasional'];

function asciiLower(value: string): string {
  return value
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}

export const DEMO_PEOPLE: readonly DemoPerson[] = NAMES.map(([firstName, lastName], i) => ({
  firstName,
  lastName,
  email: `${asciiLower(firstName)}.${asciiLower(lastName)}@example.com`,
  phone: `(415) 555-${String(101 + i).padStart(4, '0')}`,
  card: `DEMO${String(i + 1).padStart(4, '0')}`,
  // Ana is the README's customer: a regular with everything switched on.
  habit: i === 0 ? 'regular' : HABITS[i % HABITS.length]!,
}));

/** Cards the store has issued that nobody has linked yet: what a newcomer hands the cashier. */
export const UNLINKED_DEMO_CARDS = ['DEMO0901', 'DEMO0902', 'DEMO0903', 'DEMO0904', 'DEMO0905'];

/** Who is already checked in when the demo starts (the queue is alive). */
export const CHECKED_IN_AT_START = ['DEMO0002', 'DEMO0004', 'DEMO0006'];
