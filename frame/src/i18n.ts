import type { Locale } from '../../protocol/frame-messages';

const EN = {
  amount: 'Amount due',
  upiLabel: 'UPI ID',
  upiPlaceholder: 'name@bank',
  upiHint: 'You will approve the payment in your UPI app.',
  vpaRequired: 'Enter your UPI ID.',
  vpaInvalid: 'Enter a UPI ID like name@bank.',
  loading: 'Loading payment methods…',
  processing: 'Sending the payment request…',
  waiting: 'Approve the payment request in your UPI app. This page updates by itself.',
  succeeded: 'Payment succeeded.',
  failed: 'The payment failed.',
  pending: 'The payment is not complete yet.',
  loadFailed: 'The payment form could not load. Refresh the page to try again.',
  requestFailed: 'The payment could not be sent. Check your connection and try again.',
  noMethods: 'No payment method is available for this payment.',
};
export type MessageKey = keyof typeof EN;
export type Messages = Record<MessageKey, string>;

const FR: Messages = {
  amount: 'Montant à payer',
  upiLabel: 'Identifiant UPI',
  upiPlaceholder: 'nom@banque',
  upiHint: 'Vous validerez le paiement dans votre application UPI.',
  vpaRequired: 'Saisissez votre identifiant UPI.',
  vpaInvalid: 'Saisissez un identifiant UPI comme nom@banque.',
  loading: 'Chargement des moyens de paiement…',
  processing: 'Envoi de la demande de paiement…',
  waiting: 'Validez la demande de paiement dans votre application UPI. Cette page se met à jour toute seule.',
  succeeded: 'Paiement réussi.',
  failed: 'Le paiement a échoué.',
  pending: 'Le paiement n’est pas encore terminé.',
  loadFailed: 'Le formulaire de paiement n’a pas pu se charger. Actualisez la page pour réessayer.',
  requestFailed: 'Le paiement n’a pas pu être envoyé. Vérifiez votre connexion et réessayez.',
  noMethods: 'Aucun moyen de paiement n’est disponible pour ce paiement.',
};

const ES: Messages = {
  amount: 'Importe a pagar',
  upiLabel: 'ID de UPI',
  upiPlaceholder: 'nombre@banco',
  upiHint: 'Aprobarás el pago en tu aplicación de UPI.',
  vpaRequired: 'Introduce tu ID de UPI.',
  vpaInvalid: 'Introduce un ID de UPI como nombre@banco.',
  loading: 'Cargando métodos de pago…',
  processing: 'Enviando la solicitud de pago…',
  waiting: 'Aprueba la solicitud de pago en tu aplicación de UPI. Esta página se actualiza sola.',
  succeeded: 'Pago realizado.',
  failed: 'El pago ha fallado.',
  pending: 'El pago aún no se ha completado.',
  loadFailed: 'No se pudo cargar el formulario de pago. Actualiza la página para intentarlo de nuevo.',
  requestFailed: 'No se pudo enviar el pago. Comprueba tu conexión e inténtalo de nuevo.',
  noMethods: 'No hay ningún método de pago disponible para este pago.',
};

const HI: Messages = {
  amount: 'देय राशि',
  upiLabel: 'UPI आईडी',
  upiPlaceholder: 'naam@bank',
  upiHint: 'आप अपने UPI ऐप में भुगतान को मंज़ूरी देंगे।',
  vpaRequired: 'अपनी UPI आईडी दर्ज करें।',
  vpaInvalid: 'naam@bank जैसी UPI आईडी दर्ज करें।',
  loading: 'भुगतान के तरीके लोड हो रहे हैं…',
  processing: 'भुगतान अनुरोध भेजा जा रहा है…',
  waiting: 'अपने UPI ऐप में भुगतान अनुरोध को मंज़ूरी दें। यह पेज अपने आप अपडेट होगा।',
  succeeded: 'भुगतान सफल रहा।',
  failed: 'भुगतान विफल रहा।',
  pending: 'भुगतान अभी पूरा नहीं हुआ है।',
  loadFailed: 'भुगतान फ़ॉर्म लोड नहीं हो सका। फिर से कोशिश करने के लिए पेज रीफ़्रेश करें।',
  requestFailed: 'भुगतान नहीं भेजा जा सका। अपना कनेक्शन जाँचें और फिर से कोशिश करें।',
  noMethods: 'इस भुगतान के लिए कोई भुगतान तरीका उपलब्ध नहीं है।',
};

export const MESSAGES: Record<Locale, Messages> = { en: EN, fr: FR, es: ES, hi: HI };

export function messagesFor(locale: Locale | undefined): Messages {
  return MESSAGES[locale ?? 'en'] ?? EN;
}
