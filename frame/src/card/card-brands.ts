/**
 * Card network table and brand detection for the hosted frame.
 *
 * Ranges come from docs/reference.md, hosted fields §3b: braintree/credit-card-type 10.3.0
 * (CCT) for the networks it knows, hyperswitch CardPattern (HS) for RuPay, Cartes Bancaires and
 * Interac, which CCT does not ship. Neither source is network documentation (reference, "Gaps"),
 * so detection is a type-as-you-go hint; the server and the acquirer make the acceptance decision.
 */

/** A card network, named as in the interface spec's `card_networks` list. */
export type CardBrand =
  | 'Visa'
  | 'Mastercard'
  | 'AmericanExpress'
  | 'Discover'
  | 'JCB'
  | 'DinersClub'
  | 'UnionPay'
  | 'Maestro'
  | 'RuPay'
  | 'CartesBancaires'
  | 'Interac';

/** How one network's card numbers look: IIN ranges, lengths, security code and formatting gaps. */
export interface CardBrandSpec {
  readonly brand: CardBrand;
  /** Name shown to the cardholder. */
  readonly displayName: string;
  /** IIN prefixes ("4") and inclusive ranges of equal-length prefixes ("51-55"). */
  readonly iins: readonly string[];
  /** Allowed PAN lengths, ascending. */
  readonly lengths: readonly number[];
  readonly cvcLength: number;
  /** What the network calls its security code (CVV, CVC, CID, CVN). */
  readonly cvcName: string;
  /** Digit positions before which formatting inserts a space: [4, 8, 12, 16] gives 4-4-4-4(-3). */
  readonly gaps: readonly number[];
  /** False where the network issues numbers that fail Luhn (UnionPay; card-validator skips it too). */
  readonly luhn: boolean;
  /**
   * A domestic network whose BINs sit inside another network's space and whose cards carry both
   * logos. It is never the primary brand when a global network also matches: see `detectBrands`.
   */
  readonly coBadged: boolean;
}

interface BrandRow {
  brand: CardBrand;
  displayName: string;
  iins: string;
  lengths: readonly number[];
  cvcLength?: number;
  cvcName: string;
  gaps?: readonly number[];
  luhn?: boolean;
  coBadged?: boolean;
}

/** 4-4-4-4, then a fifth group for 17-19 digit numbers. */
export const DEFAULT_GAPS: readonly number[] = [4, 8, 12, 16];

/**
 * Cartes Bancaires BINs: hyperswitch's CB regex expanded into prefixes and ranges.
 * Approximate: it is a partial, third-party list inside Visa and Mastercard ranges.
 */
const CARTES_BANCAIRES_IINS =
  '401005-401006 401581 402101-402102 403550 405936 406572 413849 414819 415056 415059 415062 415071 ' +
  '415074 416286 416537 416579 41717 420110 423460 434721-434722 435048-435052 437875 439509 439511 ' +
  '439515 439539 439598 439603 439618-439620 439622 439672 442448-442452 442457 448412 450519 450560 ' +
  '4533 45566-45568 4561 45620-45622 45624-45629 456955 457452 457717 45930 45932-45933 45937 45939 ' +
  '46099 465476-465477 466258 466575 46980 46982-46983 474107 477173-477174 477186 477265 477293 479619 ' +
  '481091 483622 486519 497 49835-49839 499001-499006 499010-499016 499020-499023 499030-499033 ' +
  '499040-499043 499050-499052 499068 499092 499095-499099 507589-507590 507593-507594 507597 510726 ' +
  '5130-5137 51385-51386 513900 513938 515214 516207 516236 517222 517243 517365-517366 517502 517647 ' +
  '518101 519920 520993 521662 523718 527429 529227 529313-529314 529331 529414 529421 529430 529440 ' +
  '529447 529455-529456 52946-52949 529542 530901 531028 531030 531195 532344-532347 532459 532509 ' +
  '532534 532554 532556 533801 534102 534105 534111 535029 535066 535324 536107 536115 537106 537112 ' +
  '538011 542848 545157 549538 549858-549859 553979 553993 554205 554260 554965 557008 558867 558882 ' +
  '558929 558942-558943 559618 559809-559810 560408 561202-561206 561241 561243-561244 561250 561254 ' +
  '561256-561258 581700-581705 581707 581715 581721 581724 581731 581736-581739 58174 581750-581751 ' +
  '581756 581762 581766 581769 581773 581777-581782 581784 581786-581787 581790-581791 581797 ' +
  '585502-585505 585577-585582';

// Lengths: CCT's, plus HS's 13 for Visa (legacy 13-digit Visa numbers still validate).
// Discover's 622126-622925 (HS only) is left to UnionPay: those cards are UnionPay-issued and only
// accepted on Discover's network by agreement, so UnionPay's length and Luhn rules are the right ones.
const ROWS: readonly BrandRow[] = [
  { brand: 'Visa', displayName: 'Visa', iins: '4', lengths: [13, 16, 18, 19], cvcName: 'CVV' },
  {
    brand: 'Mastercard',
    displayName: 'Mastercard',
    iins: '51-55 2221-2229 223-229 23-26 270-271 2720',
    lengths: [16],
    cvcName: 'CVC',
  },
  {
    brand: 'AmericanExpress',
    displayName: 'American Express',
    iins: '34 37',
    lengths: [15],
    cvcLength: 4,
    cvcName: 'CID',
    gaps: [4, 10],
  },
  { brand: 'Discover', displayName: 'Discover', iins: '6011 644-649 65', lengths: [16, 19], cvcName: 'CID' },
  { brand: 'JCB', displayName: 'JCB', iins: '2131 1800 3528-3589', lengths: [16, 17, 18, 19], cvcName: 'CVV' },
  {
    brand: 'DinersClub',
    displayName: 'Diners Club',
    iins: '300-305 36 38 39',
    lengths: [14, 16, 19],
    cvcName: 'CVV',
    gaps: [4, 10],
  },
  {
    brand: 'UnionPay',
    displayName: 'UnionPay',
    iins:
      '620 62100-62182 62184-62187 62185-62197 62200-62205 622010-622999 622018 62207-62209 623-626 ' +
      '6270 6272 6276 627700-627779 627781-627799 6282-6289 6291 6292 810 8110-8131 8132-8151 8152-8163 8164-8171',
    lengths: [14, 15, 16, 17, 18, 19],
    cvcName: 'CVN',
    luhn: false,
  },
  {
    brand: 'Maestro',
    displayName: 'Maestro',
    // CCT's trailing "6" claims every 6-prefix no other network owns, so odd debit BINs still validate.
    iins: '493698 500000-504174 504176-506698 506779-508999 56-59 63 67 6',
    lengths: [12, 13, 14, 15, 16, 17, 18, 19],
    cvcName: 'CVC',
  },
  {
    brand: 'RuPay',
    displayName: 'RuPay',
    iins: '508227 508500-508999 603741 606985-607984 608001-608500 652150-653149 817290 817368 817378 353800 82',
    lengths: [16],
    cvcName: 'CVV',
  },
  { brand: 'CartesBancaires', displayName: 'Cartes Bancaires', iins: CARTES_BANCAIRES_IINS, lengths: [16, 17, 18, 19], cvcName: 'CVV', coBadged: true },
  // Approximate: HS's four prefixes. 4506, 4724 and 4761 are Visa debit ranges that carry Interac;
  // only 0012 is Interac alone.
  { brand: 'Interac', displayName: 'Interac', iins: '4506 4724 4761 0012', lengths: [16], cvcName: 'CVV', coBadged: true },
];

/** Every supported network, in table order. */
export const CARD_BRANDS: readonly CardBrandSpec[] = ROWS.map((row) => ({
  brand: row.brand,
  displayName: row.displayName,
  iins: row.iins.split(' '),
  lengths: row.lengths,
  cvcLength: row.cvcLength ?? 3,
  cvcName: row.cvcName,
  gaps: row.gaps ?? DEFAULT_GAPS,
  luhn: row.luhn ?? true,
  coBadged: row.coBadged ?? false,
}));

/** Longest PAN any network allows (ISO/IEC 7812). */
export const MAX_CARD_NUMBER_LENGTH = 19;

interface IinRange {
  spec: CardBrandSpec;
  from: string;
  to: string;
  /** Higher is more specific: longer prefix first, then the narrower range. */
  rank: number;
}

// Tie rules, so every number resolves to exactly one brand whatever the table order:
// 1. The longest matched prefix wins: "4" (Visa) loses to "493698" (Maestro), "65" (Discover) to
//    "652150-653149" (RuPay), "3528-3589" (JCB) to "353800" (RuPay), "81x" (UnionPay) to "817290" (RuPay).
// 2. At equal length the narrower range wins, being the more specific claim: RuPay's 508500-508999
//    beats Maestro's 506779-508999.
// 3. Co-badged networks (Cartes Bancaires, Interac) only win when no global network matches, because
//    those cards carry the global logo too and the cardholder picks the network (reference 3b).
// 4. Exact ties keep table order (none occur in the table above).
const RANGES: readonly IinRange[] = CARD_BRANDS.flatMap((spec) =>
  spec.iins.map((iin) => {
    const [from = iin, to = from] = iin.split('-');
    return { spec, from, to, rank: from.length * 1e7 - (Number(to) - Number(from)) };
  }),
);

function onlyDigits(input: string): string {
  return input.replace(/\D/g, '');
}

function matchesFully(digits: string, range: IinRange): boolean {
  const head = digits.slice(0, range.from.length);
  return head.length === range.from.length && range.from <= head && head <= range.to;
}

function bestRange(digits: string, coBadged: boolean): IinRange | undefined {
  let best: IinRange | undefined;
  for (const range of RANGES) {
    if (range.spec.coBadged === coBadged && matchesFully(digits, range) && (!best || range.rank > best.rank)) best = range;
  }
  return best;
}

/**
 * Detects the primary network from the digits typed so far (non-digits are ignored), picking the
 * most specific IIN match. The answer can change as digits arrive ("6" is Maestro, "6011" Discover).
 * @example detectBrand('4242') // 'Visa'
 */
export function detectBrand(digits: string): CardBrand | undefined {
  const clean = onlyDigits(digits);
  return (bestRange(clean, false) ?? bestRange(clean, true))?.spec.brand;
}

/**
 * Lists every network the number can be routed on: the primary brand first, then any co-badged
 * domestic network (Cartes Bancaires, Interac), for a network picker such as the one EU law requires.
 * @example detectBrands('4035501000000008') // ['Visa', 'CartesBancaires']
 */
export function detectBrands(digits: string): CardBrand[] {
  const clean = onlyDigits(digits);
  const primary = detectBrand(clean);
  const coBadges = CARD_BRANDS.filter(
    (spec) => spec.coBadged && spec.brand !== primary && RANGES.some((r) => r.spec === spec && matchesFully(clean, r)),
  ).map((spec) => spec.brand);
  return primary ? [primary, ...coBadges] : coBadges;
}

/**
 * Tells whether more digits could still make this prefix match some network, so "5" is not yet an
 * unknown brand while "9" already is.
 */
export function canMatchAnyBrand(digits: string): boolean {
  const clean = onlyDigits(digits);
  return RANGES.some(({ from, to }) => {
    const n = Math.min(clean.length, from.length);
    const head = clean.slice(0, n);
    return from.slice(0, n) <= head && head <= to.slice(0, n);
  });
}

/** Returns the table row of a network. */
export function getCardBrandSpec(brand: CardBrand): CardBrandSpec {
  const spec = CARD_BRANDS.find((s) => s.brand === brand);
  if (!spec) throw new Error(`Unknown card brand "${brand}": expected one of ${CARD_BRANDS.map((s) => s.brand).join(', ')}.`);
  return spec;
}
