export { passesLuhn } from '../../../protocol/luhn';
