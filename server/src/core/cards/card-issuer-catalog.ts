/**
 * The card issuers GET /card_issuers searches: a fixed reference list (the simulated acquirer knows these banks;
 * docs/simulator.md). Ids are stable; the list is alphabetical by name.
 */
export const CARD_ISSUERS: readonly { id: string; issuer_name: string }[] = [
  { id: 'issuer_american_express', issuer_name: 'American Express' },
  { id: 'issuer_axis_bank', issuer_name: 'Axis Bank' },
  { id: 'issuer_banco_santander', issuer_name: 'Banco Santander' },
  { id: 'issuer_bank_of_america', issuer_name: 'Bank of America' },
  { id: 'issuer_barclays', issuer_name: 'Barclays' },
  { id: 'issuer_bnp_paribas', issuer_name: 'BNP Paribas' },
  { id: 'issuer_capital_one', issuer_name: 'Capital One' },
  { id: 'issuer_chase', issuer_name: 'Chase' },
  { id: 'issuer_citibank', issuer_name: 'Citibank' },
  { id: 'issuer_deutsche_bank', issuer_name: 'Deutsche Bank' },
  { id: 'issuer_hdfc_bank', issuer_name: 'HDFC Bank' },
  { id: 'issuer_hsbc', issuer_name: 'HSBC' },
  { id: 'issuer_icici_bank', issuer_name: 'ICICI Bank' },
  { id: 'issuer_ing', issuer_name: 'ING' },
  { id: 'issuer_kotak_mahindra_bank', issuer_name: 'Kotak Mahindra Bank' },
  { id: 'issuer_lloyds_bank', issuer_name: 'Lloyds Bank' },
  { id: 'issuer_monzo', issuer_name: 'Monzo' },
  { id: 'issuer_revolut', issuer_name: 'Revolut' },
  { id: 'issuer_state_bank_of_india', issuer_name: 'State Bank of India' },
  { id: 'issuer_wells_fargo', issuer_name: 'Wells Fargo' },
];
